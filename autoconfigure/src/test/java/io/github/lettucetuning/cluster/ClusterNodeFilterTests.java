package io.github.lettucetuning.cluster;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClusterNodeFilter}.
 */
class ClusterNodeFilterTests {

	private final ClusterNodeFilter filter = ClusterNodeFilter.excludingUnusableNodes();

	@Test
	void keepsHealthyMastersAndReplicas() {
		assertThat(this.filter.test(node(EnumSet.of(NodeFlag.UPSTREAM)))).isTrue();
		assertThat(this.filter.test(node(EnumSet.of(NodeFlag.REPLICA)))).isTrue();
		assertThat(this.filter.test(node(EnumSet.of(NodeFlag.MYSELF, NodeFlag.UPSTREAM)))).isTrue();
	}

	@Test
	void leavesOutFailedNodes() {
		assertThat(this.filter.test(node(EnumSet.of(NodeFlag.UPSTREAM, NodeFlag.FAIL)))).isFalse();
		assertThat(this.filter.test(node(EnumSet.of(NodeFlag.REPLICA, NodeFlag.FAIL)))).isFalse();
	}

	@Test
	void leavesOutPossiblyFailedNodes() {
		assertThat(this.filter.test(node(EnumSet.of(NodeFlag.UPSTREAM, NodeFlag.EVENTUAL_FAIL)))).isFalse();
	}

	@Test
	void leavesOutNodesWithoutAddress() {
		assertThat(this.filter.test(node(EnumSet.of(NodeFlag.UPSTREAM, NodeFlag.NOADDR)))).isFalse();
		assertThat(this.filter.test(node(null, EnumSet.of(NodeFlag.UPSTREAM)))).isFalse();
		assertThat(this.filter.test(node(RedisURI.create("127.0.0.1", 0), EnumSet.of(NodeFlag.UPSTREAM)))).isFalse();
	}

	@Test
	void eachExclusionCanBeSwitchedOff() {
		ClusterNodeFilter keepAll = new ClusterNodeFilter(false, false, false);
		assertThat(keepAll.test(node(EnumSet.of(NodeFlag.UPSTREAM, NodeFlag.FAIL)))).isTrue();
		assertThat(keepAll.test(node(EnumSet.of(NodeFlag.UPSTREAM, NodeFlag.EVENTUAL_FAIL)))).isTrue();
		assertThat(keepAll.test(node(EnumSet.of(NodeFlag.UPSTREAM, NodeFlag.NOADDR)))).isTrue();
		ClusterNodeFilter failedOnly = new ClusterNodeFilter(true, false, false);
		assertThat(failedOnly.test(node(EnumSet.of(NodeFlag.UPSTREAM, NodeFlag.FAIL)))).isFalse();
		assertThat(failedOnly.test(node(EnumSet.of(NodeFlag.UPSTREAM, NodeFlag.EVENTUAL_FAIL)))).isTrue();
	}

	private static RedisClusterNode node(Set<NodeFlag> flags) {
		return node(RedisURI.create("127.0.0.1", 7000), flags);
	}

	private static RedisClusterNode node(@Nullable RedisURI uri, Set<NodeFlag> flags) {
		return new RedisClusterNode(uri, "id", true, null, 0, 0, 0, List.of(), flags);
	}

}
