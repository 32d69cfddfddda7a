package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.server.Await;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RespClient;
import io.github.lettucetuning.testsupport.topology.ClusterSlots;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Integration tests for {@link ClusterFaults#reconcile()} after a reshard broke off
 * midway, with some keys of the slot moved to the importing master and the rest left with
 * the migrating one. They share one cluster and each use a slot of their own.
 */
@RedisClusterTest
class ClusterFaultsIntegrationTests {

	private static final int KEYS = 10;

	private static final int KEYS_MOVED = 4;

	private final RedisClusterTopology cluster;

	ClusterFaultsIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	void slotSplitBetweenBothSidesGoesBackToItsOwner() {
		List<String> keys = keysOfOneSlot("split");
		String slot = Integer.toString(ClusterSlots.slotFor(keys.get(0)));
		RedisNode owner = this.cluster.masterForKey(keys.get(0));
		RedisNode importing = breakOffMove(keys, owner);

		String note = new ClusterFaults(this.cluster).reconcile();

		assertThat(note).isEqualTo("moved " + KEYS_MOVED + " keys of slot " + slot + " from " + importing.port()
				+ " to " + owner.port() + ", cleared abandoned slot states [" + owner.port() + ":" + slot + ">, "
				+ importing.port() + ":" + slot + "<]");
		assertHealedWithEveryKeyOn(owner, keys);
	}

	@Test
	void slotOnlyImportedAnyMoreGoesBackToItsOwner() {
		List<String> keys = keysOfOneSlot("importing");
		String slot = Integer.toString(ClusterSlots.slotFor(keys.get(0)));
		RedisNode owner = this.cluster.masterForKey(keys.get(0));
		RedisNode importing = breakOffMove(keys, owner);
		// As after a failover of the migrating master: its replica knows of no migration
		owner.command("CLUSTER", "SETSLOT", slot, "STABLE");

		String note = new ClusterFaults(this.cluster).reconcile();

		assertThat(note).isEqualTo("moved " + KEYS_MOVED + " keys of slot " + slot + " from " + importing.port()
				+ " to " + owner.port() + ", cleared abandoned slot states [" + importing.port() + ":" + slot + "<]");
		assertHealedWithEveryKeyOn(owner, keys);
	}

	@Test
	void slotImportedFromAFailedOverMasterGoesToThePromotedReplica() {
		List<String> keys = keysOfOneSlot("failover");
		String slot = Integer.toString(ClusterSlots.slotFor(keys.get(0)));
		RedisNode formerOwner = this.cluster.masterForKey(keys.get(0));
		RedisNode promoted = this.cluster.replicaOf(formerOwner);
		RedisNode importing = breakOffMove(keys, formerOwner);
		promoted.command("CLUSTER", "FAILOVER");
		Await.until(Duration.ofSeconds(10), promoted + " to be promoted",
				() -> "master".equals(promoted.role()) ? null : "not yet");
		// Its view still gives the slot to the former owner, a replica now: the slot is
		// uncovered there, which keeps even MIGRATE from working
		Await.until(Duration.ofSeconds(10), importing + " to report cluster_state:fail",
				() -> importing.commandAsString("CLUSTER", "INFO").contains("cluster_state:fail") ? null : "ok");

		String note = new ClusterFaults(this.cluster).reconcile();

		assertThat(note)
			.isEqualTo("moved " + KEYS_MOVED + " keys of slot " + slot + " from " + importing.port() + " to "
					+ promoted.port() + ", cleared abandoned slot states [" + importing.port() + ":" + slot + "<]");
		assertHealedWithEveryKeyOn(promoted, keys);
	}

	@Test
	void aKeyOnBothSidesKeepsTheOwnersValue() {
		List<String> keys = keysOfOneSlot("stale");
		String slot = Integer.toString(ClusterSlots.slotFor(keys.get(0)));
		RedisNode owner = this.cluster.masterForKey(keys.get(0));
		RedisNode importing = breakOffMove(keys, owner);
		// A copy the owner did not move, as a former owner keeps its old keys
		String stale = keys.get(KEYS - 1);
		try (RespClient connection = importing.connect(Duration.ofSeconds(5))) {
			connection.command("ASKING");
			connection.command("SET", stale, "stale");
		}

		String note = new ClusterFaults(this.cluster).reconcile();

		assertThat(note)
			.isEqualTo("moved " + KEYS_MOVED + " keys of slot " + slot + " from " + importing.port() + " to "
					+ owner.port() + " (stale copies the owner also had, dropped: 1), cleared abandoned slot states ["
					+ owner.port() + ":" + slot + ">, " + importing.port() + ":" + slot + "<]");
		assertHealedWithEveryKeyOn(owner, keys);
	}

	// Keys of one slot, written to its owner
	private List<String> keysOfOneSlot(String tag) {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < KEYS; i++) {
			keys.add("{" + tag + "}:" + i);
		}
		RedisNode owner = this.cluster.masterForKey(keys.get(0));
		keys.forEach((key) -> owner.command("SET", key, key));
		return keys;
	}

	// Opens the slot on both sides and moves some of its keys, as a reshard does before
	// another fault stops it
	private RedisNode breakOffMove(List<String> keys, RedisNode owner) {
		String slot = Integer.toString(ClusterSlots.slotFor(keys.get(0)));
		RedisNode importing = this.cluster.masters().stream().filter((node) -> node != owner).findFirst().orElseThrow();
		importing.command("CLUSTER", "SETSLOT", slot, "IMPORTING", this.cluster.nodeId(owner));
		owner.command("CLUSTER", "SETSLOT", slot, "MIGRATING", this.cluster.nodeId(importing));
		List<String> migrate = new ArrayList<>(
				List.of("MIGRATE", importing.host(), Integer.toString(importing.port()), "", "0", "5000", "KEYS"));
		migrate.addAll(keys.subList(0, KEYS_MOVED));
		owner.command(migrate.toArray(String[]::new));
		assertThat(importing.command("CLUSTER", "COUNTKEYSINSLOT", slot)).isEqualTo((long) KEYS_MOVED);
		return importing;
	}

	private void assertHealedWithEveryKeyOn(RedisNode owner, List<String> keys) {
		String slot = Integer.toString(ClusterSlots.slotFor(keys.get(0)));
		for (RedisNode node : this.cluster.nodes()) {
			assertThat(node.commandAsString("CLUSTER", "INFO")).contains("cluster_state:ok");
			// A slot left half-moved shows as [slot->-id] or [slot-<-id]
			assertThat(node.commandAsString("CLUSTER", "NODES")).doesNotContain("->-").doesNotContain("-<-");
		}
		for (RedisNode master : this.cluster.masters()) {
			if (master != owner) {
				assertThat(master.command("CLUSTER", "COUNTKEYSINSLOT", slot)).isEqualTo(0L);
			}
		}
		assertThat(this.cluster.masterForKey(keys.get(0))).isSameAs(owner);
		keys.forEach((key) -> assertThat(owner.command("GET", key)).as(key).isEqualTo(key));
	}

}
