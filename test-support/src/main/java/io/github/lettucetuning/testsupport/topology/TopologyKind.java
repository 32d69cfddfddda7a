package io.github.lettucetuning.testsupport.topology;

import java.util.Arrays;
import java.util.Optional;

/**
 * The kinds of topology test support starts, each with the type a test receives.
 */
public enum TopologyKind {

	/**
	 * One server.
	 */
	STANDALONE(RedisStandalone.class),

	/**
	 * A master, a replica and Sentinels.
	 */
	SENTINEL(RedisSentinelTopology.class),

	/**
	 * A cluster of masters and replicas.
	 */
	CLUSTER(RedisClusterTopology.class);

	private final Class<? extends RedisTopology> type;

	TopologyKind(Class<? extends RedisTopology> type) {
		this.type = type;
	}

	/**
	 * Return the type of a started topology of this kind.
	 * @return the type
	 */
	public Class<? extends RedisTopology> type() {
		return this.type;
	}

	/**
	 * Return the kind whose started topologies have the given type.
	 * @param type a type, e.g. of a test's parameter
	 * @return the kind, empty for any other type
	 */
	public static Optional<TopologyKind> forType(Class<?> type) {
		return Arrays.stream(values()).filter((kind) -> kind.type.equals(type)).findFirst();
	}

}
