package io.github.lettucetuning.testsupport;

import java.lang.annotation.Annotation;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Function;

import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.github.lettucetuning.testsupport.topology.RedisTopology;

/**
 * The topologies the extension can start: which annotation asks for it, which type a test
 * receives and how it is started from the annotation attributes.
 */
enum TopologyKind {

	STANDALONE(RedisStandaloneTest.class, RedisStandalone.class, TopologyKind::standalone),

	SENTINEL(RedisSentinelTest.class, RedisSentinelTopology.class, TopologyKind::sentinel),

	CLUSTER(RedisClusterTest.class, RedisClusterTopology.class, TopologyKind::cluster);

	private final Class<? extends Annotation> annotation;

	private final Class<? extends RedisTopology> type;

	private final Function<Annotation, RedisTopology> starter;

	TopologyKind(Class<? extends Annotation> annotation, Class<? extends RedisTopology> type,
			Function<Annotation, RedisTopology> starter) {
		this.annotation = annotation;
		this.type = type;
		this.starter = starter;
	}

	Class<? extends Annotation> annotation() {
		return this.annotation;
	}

	Class<? extends RedisTopology> type() {
		return this.type;
	}

	RedisTopology start(Annotation attributes) {
		return this.starter.apply(attributes);
	}

	static Optional<TopologyKind> forType(Class<?> type) {
		return Arrays.stream(values()).filter((kind) -> kind.type.equals(type)).findFirst();
	}

	private static RedisTopology standalone(Annotation annotation) {
		RedisStandaloneTest attributes = (RedisStandaloneTest) annotation;
		RedisServerConfig config = RedisServerConfig.defaults();
		if (!attributes.password().isEmpty()) {
			config = config.withPassword(attributes.password());
		}
		for (String user : attributes.aclUsers()) {
			int colon = user.indexOf(':');
			if (colon <= 0) {
				throw new IllegalArgumentException("ACL user '" + user + "' must be written username:password");
			}
			config = config.withAclUser(user.substring(0, colon), user.substring(colon + 1));
		}
		return RedisStandalone.start(config);
	}

	private static RedisTopology sentinel(Annotation annotation) {
		RedisSentinelTest attributes = (RedisSentinelTest) annotation;
		return RedisSentinelTopology.builder()
			.masterName(attributes.masterName())
			.downAfter(Duration.ofMillis(attributes.downAfterMillis()))
			.failoverTimeout(Duration.ofMillis(attributes.failoverTimeoutMillis()))
			.start();
	}

	private static RedisTopology cluster(Annotation annotation) {
		RedisClusterTest attributes = (RedisClusterTest) annotation;
		return RedisClusterTopology.builder()
			.masters(attributes.masters())
			.replicasPerMaster(attributes.replicasPerMaster())
			.nodeTimeout(Duration.ofMillis(attributes.nodeTimeoutMillis()))
			.start();
	}

}
