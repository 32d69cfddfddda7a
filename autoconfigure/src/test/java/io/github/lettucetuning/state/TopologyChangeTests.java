package io.github.lettucetuning.state;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link TopologyChange}.
 */
class TopologyChangeTests {

	private static final Instant NOW = Instant.parse("2026-08-20T10:00:00Z");

	@Test
	void failoverSwapsRoles() {
		TopologyChange change = TopologyChange.between(NOW,
				List.of(Nodes.master("m", 7000, 0, 10), Nodes.replica("r", 7003, "m")),
				List.of(Nodes.replica("m", 7000, "r"), Nodes.master("r", 7003, 0, 10)));
		assertThat(change.added()).isEmpty();
		assertThat(change.removed()).isEmpty();
		assertThat(change.changed()).containsExactly("127.0.0.1:7000 became replica", "127.0.0.1:7000 slots 10 -> 0",
				"127.0.0.1:7003 became master", "127.0.0.1:7003 slots 0 -> 10");
	}

	@Test
	void nodesJoinLeaveAndFail() {
		TopologyChange change = TopologyChange.between(NOW,
				List.of(Nodes.master("a", 7000, 0, 10), Nodes.master("gone", 7009, 10, 10)),
				List.of(Nodes.master("a", 7000, 0, 10, NodeFlag.FAIL), Nodes.master("new", 7010, 10, 10)));
		assertThat(change.added()).containsExactly("127.0.0.1:7010");
		assertThat(change.removed()).containsExactly("127.0.0.1:7009");
		assertThat(change.changed()).containsExactly("127.0.0.1:7000 flagged failing");
	}

	@Test
	void slotsThatMoveAreReportedEvenWhenTheCountStays() {
		TopologyChange change = TopologyChange.between(NOW, List.of(Nodes.master("a", 7000, 0, 10)),
				List.of(Nodes.master("a", 7000, 5, 10)));
		assertThat(change.changed()).containsExactly("127.0.0.1:7000 slots 10 -> 10");
	}

	@Test
	void listsAreBoundedAndNamesCarryNoCredentials() {
		List<RedisClusterNode> after = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			after.add(Nodes.master("n" + i, 7000 + i, i, 1));
		}
		TopologyChange change = TopologyChange.between(NOW, List.of(), after);
		assertThat(change.added()).hasSize(TopologyChange.MAX_ENTRIES)
			.allSatisfy((name) -> assertThat(name).doesNotContain("s3cret").startsWith("127.0.0.1:"));
	}

}
