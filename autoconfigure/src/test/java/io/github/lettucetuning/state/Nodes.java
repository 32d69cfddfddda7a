package io.github.lettucetuning.state;

import java.util.EnumSet;
import java.util.List;
import java.util.stream.IntStream;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;

/**
 * Cluster nodes for tests.
 */
final class Nodes {

	private Nodes() {
	}

	static RedisClusterNode master(String id, int port, int firstSlot, int slots, NodeFlag... flags) {
		EnumSet<NodeFlag> all = EnumSet.of(NodeFlag.UPSTREAM);
		all.addAll(List.of(flags));
		return new RedisClusterNode(uri(port), id, true, null, 0, 0, 0,
				IntStream.range(firstSlot, firstSlot + slots).boxed().toList(), all);
	}

	static RedisClusterNode replica(String id, int port, String masterId) {
		return new RedisClusterNode(uri(port), id, true, masterId, 0, 0, 0, List.of(), EnumSet.of(NodeFlag.REPLICA));
	}

	private static RedisURI uri(int port) {
		return RedisURI.builder().withHost("127.0.0.1").withPort(port).withPassword("s3cret".toCharArray()).build();
	}

}
