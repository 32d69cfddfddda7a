package io.github.lettucetuning.testsupport.topology;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.server.RedisInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RespErrorException;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Integration tests for {@link RedisClusterTopology}, sharing one cluster.
 */
@RedisClusterTest
@TestMethodOrder(OrderAnnotation.class)
class RedisClusterTopologyIntegrationTests {

	private final RedisClusterTopology cluster;

	RedisClusterTopologyIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	@Order(1)
	void clusterIsOkOnEveryNode() {
		assertThat(this.cluster.nodes()).hasSize(6);
		for (RedisNode node : this.cluster.nodes()) {
			Map<String, String> info = RedisInfo.parse(node.commandAsString("CLUSTER", "INFO"));
			assertThat(info).containsEntry("cluster_state", "ok")
				.containsEntry("cluster_slots_assigned", "16384")
				.containsEntry("cluster_known_nodes", "6")
				.containsEntry("cluster_size", "3");
			assertThat(node.config().isClusterEnabled()).isTrue();
			assertThat(node.command("CONFIG", "GET", "cluster-node-timeout")).asList()
				.containsExactly("cluster-node-timeout", "2000");
		}
		assertThat(this.cluster.masters()).hasSize(3);
		assertThat(this.cluster.replicas()).hasSize(3);
		for (RedisNode master : this.cluster.masters()) {
			assertThat(this.cluster.replicasOf(master)).hasSize(1);
		}
	}

	@Test
	@Order(2)
	void ownSlotCalculationMatchesTheServers() {
		RedisNode anyNode = this.cluster.nodes().get(0);
		for (String key : List.of("foo", "{user1000}.following", "{user1000}.followers", "a", "key:42", "")) {
			assertThat(anyNode.command("CLUSTER", "KEYSLOT", key)).as(key).isEqualTo((long) ClusterSlots.slotFor(key));
		}
		for (int i = 0; i < 50; i++) {
			String key = "routed:" + i;
			RedisNode master = this.cluster.masterForKey(key);
			assertThat(master.command("SET", key, "v")).isEqualTo("OK");
		}
	}

	@Test
	@Order(3)
	void manualFailoverPromotesTheReplica() {
		RedisNode master = this.cluster.masterForKey("failover");
		RedisNode replica = this.cluster.replicaOf(master);

		this.cluster.failover(replica);

		assertThat(this.cluster.masterForKey("failover")).isSameAs(replica);
		assertThat(replica.role()).isEqualTo("master");
		assertThat(master.role()).isEqualTo("slave");
		assertThat(this.cluster.replicaOf(replica)).isSameAs(master);
	}

	@Test
	@Order(4)
	void slotsMigrateToAnAddedMasterAndKeysStayReadable() {
		RedisNode from = this.cluster.masterForSlot(0);
		Map<String, String> keys = keysInSlots(0, 20);
		keys.forEach((key, value) -> from.command("SET", key, value));

		RedisNode added = this.cluster.addEmptyMaster();
		assertThat(this.cluster.nodes()).hasSize(7).contains(added);
		assertThat(this.cluster.masters()).hasSize(4).contains(added);
		List<Integer> moved = this.cluster.migrateSlots(from, added, 20);

		assertThat(moved).hasSize(20).first().isEqualTo(0);
		for (int slot : moved) {
			assertThat(this.cluster.masterForSlot(slot)).isSameAs(added);
		}
		keys.forEach((key, value) -> {
			assertThat(this.cluster.masterForKey(key)).isSameAs(added);
			assertThat(added.command("GET", key)).isEqualTo(value);
			assertThatExceptionOfType(RespErrorException.class).isThrownBy(() -> from.command("GET", key))
				.satisfies((error) -> assertThat(error.errorCode()).isEqualTo("MOVED"));
		});
		assertThat(added.command("DBSIZE")).isEqualTo((long) keys.size());
	}

	@Test
	@Order(5)
	void killedMasterIsReplacedByItsReplicaAndRejoinsAsReplica() {
		RedisNode master = this.cluster.masterForSlot(16383);
		RedisNode replica = this.cluster.replicaOf(master);
		String masterId = master.commandAsString("CLUSTER", "MYID");

		this.cluster.killMaster(master);
		RedisNode promoted = this.cluster.awaitReplicaPromoted(master);

		assertThat(promoted).isSameAs(replica);
		assertThat(this.cluster.masterForSlot(16383)).isSameAs(promoted);
		master.restart();
		this.cluster.awaitClusterOk();
		assertThat(master.role()).isEqualTo("slave");
		assertThat(this.cluster.replicaOf(promoted)).isSameAs(master);
		// Same directory, same nodes.conf: the node came back as itself
		assertThat(master.commandAsString("CLUSTER", "MYID")).isEqualTo(masterId);
	}

	private static Map<String, String> keysInSlots(int firstSlot, int count) {
		Map<String, String> keys = new LinkedHashMap<>();
		List<Integer> slotsSeen = new ArrayList<>();
		for (int i = 0; slotsSeen.size() < count || keys.size() < 40; i++) {
			String key = "migrating:" + i;
			int slot = ClusterSlots.slotFor(key);
			if (slot >= firstSlot && slot < firstSlot + count) {
				keys.put(key, "value-" + i);
				if (!slotsSeen.contains(slot)) {
					slotsSeen.add(slot);
				}
			}
		}
		return keys;
	}

}
