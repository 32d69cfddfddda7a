package io.github.lettucetuning.testsupport.fault;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;

/**
 * Entry point for fault injection in tests: <pre class="code">
 * try (Fault pause = Faults.pause(node)) {
 *     // the node answers nothing until the block ends
 * }
 * </pre>
 */
public final class Faults {

	private Faults() {
	}

	/**
	 * Freeze a node with SIGSTOP; healing sends SIGCONT.
	 * @param node the node
	 * @return the fault
	 */
	public static Fault pause(RedisNode node) {
		node.pause();
		return once(node::resume);
	}

	/**
	 * Kill a node with SIGKILL; healing restarts it on the same port and directory.
	 * @param node the node
	 * @return the fault
	 */
	public static Fault kill(RedisNode node) {
		node.kill();
		return once(node::restart);
	}

	/**
	 * Block a node with {@code DEBUG SLEEP}; it heals by itself.
	 * @param node the node
	 * @param duration how long the node sleeps
	 * @return completes when the node answers again
	 */
	public static CompletableFuture<Void> debugSleep(RedisNode node, Duration duration) {
		return node.debugSleep(duration);
	}

	/**
	 * Kill every connection with the given client name ({@code CLIENT KILL ID}).
	 * @param node the node
	 * @param clientName the client name
	 * @return how many connections were killed
	 */
	public static long killClients(RedisNode node, String clientName) {
		return node.killClient(clientName);
	}

	/**
	 * Promote a cluster replica with {@code CLUSTER FAILOVER} and wait until the cluster
	 * is ok again.
	 * @param cluster the cluster
	 * @param replica the replica to promote
	 * @return the promoted node
	 */
	public static RedisNode clusterFailover(RedisClusterTopology cluster, RedisNode replica) {
		cluster.failover(replica);
		return replica;
	}

	/**
	 * Force a Sentinel failover and wait until it completed.
	 * @param sentinel the topology
	 * @return the new master
	 */
	public static RedisNode sentinelFailover(RedisSentinelTopology sentinel) {
		return sentinel.failover();
	}

	/**
	 * Add an empty master to a cluster and move slots from another master to it (a
	 * resharding, as seen by clients: {@code ASK} then {@code MOVED} redirections).
	 * @param cluster the cluster
	 * @param from the master giving slots away
	 * @param slotCount how many slots to move
	 * @return the new master
	 */
	public static RedisNode addMasterAndMigrateSlots(RedisClusterTopology cluster, RedisNode from, int slotCount) {
		RedisNode added = cluster.addEmptyMaster();
		List<Integer> moved = cluster.migrateSlots(from, added, slotCount);
		if (moved.size() != slotCount) {
			throw new IllegalStateException("Moved " + moved.size() + " slots instead of " + slotCount);
		}
		return added;
	}

	/**
	 * Drop every packet to and from a node's client port (see {@link NetworkBlackhole});
	 * check {@link NetworkBlackhole#availability()} first. For a cluster node the bus
	 * port ({@code port + 10000}) stays open, so the other nodes still see it: the
	 * partition is between clients and the node only. Drop the bus port too for a full
	 * partition.
	 * @param node the node
	 * @return the fault
	 */
	public static NetworkBlackhole blackhole(RedisNode node) {
		return NetworkBlackhole.drop(node.port());
	}

	private static Fault once(Runnable healing) {
		AtomicBoolean healed = new AtomicBoolean();
		return () -> {
			if (healed.compareAndSet(false, true)) {
				healing.run();
			}
		};
	}

}
