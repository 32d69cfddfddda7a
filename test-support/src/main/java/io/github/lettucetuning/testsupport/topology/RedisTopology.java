package io.github.lettucetuning.testsupport.topology;

import java.util.List;

import io.github.lettucetuning.testsupport.server.RedisNode;

/**
 * A set of {@code redis-server} processes started together and stopped together.
 */
public interface RedisTopology extends AutoCloseable {

	/**
	 * Return every node of the topology, including Sentinels and nodes added later.
	 * @return the nodes
	 */
	List<RedisNode> nodes();

	/**
	 * Stop every process of the topology and delete their directories. Idempotent.
	 */
	@Override
	void close();

}
