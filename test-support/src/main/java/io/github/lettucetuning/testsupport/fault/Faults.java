package io.github.lettucetuning.testsupport.fault;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.lettucetuning.testsupport.server.Await;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.ProcessSignals;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RespClient;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;

/**
 * Entry point for fault injection in tests, the one place a fault is injected (the
 * {@link RedisNode} handle only starts, stops and asks its process): <pre class="code">
 * try (Fault pause = Faults.pause(node)) {
 *     // the node answers nothing until the block ends
 * }
 * </pre>
 */
public final class Faults {

	private static final Duration SIGNAL_BOUND = Duration.ofSeconds(5);

	private static final Duration KILL_BOUND = Duration.ofSeconds(10);

	private Faults() {
	}

	/**
	 * Freeze a node with SIGSTOP: connections stay open but nothing is answered, like a
	 * long GC pause or a hung host. Healing sends SIGCONT ({@link #resume(RedisNode)}).
	 * @param node the node
	 * @return the fault
	 * @throws IllegalStateException if the node does not run
	 */
	public static Fault pause(RedisNode node) {
		if (!node.signal("STOP")) {
			throw new IllegalStateException("Cannot pause " + node + ": it is not running");
		}
		long pid = node.pid();
		// Signal delivery is asynchronous: only report "paused" once the kernel agrees
		Await.until(SIGNAL_BOUND, node + " to be stopped by SIGSTOP",
				() -> isStoppedOrUnknown(pid) ? null : "state " + ProcessSignals.state(pid));
		return once(() -> resume(node));
	}

	/**
	 * Continue a paused node with SIGCONT. Does nothing if the node is not paused.
	 * @param node the node
	 */
	public static void resume(RedisNode node) {
		if (node.isPaused() && node.signal("CONT")) {
			Await.until(SIGNAL_BOUND, node + " to be continued by SIGCONT",
					() -> node.isPaused() ? "still stopped" : null);
		}
	}

	/**
	 * Kill a node with SIGKILL and wait until it is gone; healing restarts it on the same
	 * port and directory, so a cluster node keeps its identity.
	 * @param node the node
	 * @return the fault
	 */
	public static Fault kill(RedisNode node) {
		node.signal("KILL");
		node.awaitExit(KILL_BOUND);
		return once(node::restart);
	}

	/**
	 * Bring a node back after a fault test: continue it if it is paused, start it again
	 * if it was killed. Does nothing to a node that runs.
	 * @param node the node
	 */
	public static void recover(RedisNode node) {
		resume(node);
		if (!node.isAlive()) {
			node.restart();
		}
	}

	/**
	 * Block a node with {@code DEBUG SLEEP}; it heals by itself. The command is written
	 * before this method returns, the reply is awaited on a background thread.
	 * @param node the node
	 * @param duration how long the node sleeps
	 * @return completes when the node woke up and answered
	 */
	public static CompletableFuture<Void> debugSleep(RedisNode node, Duration duration) {
		RespClient client = node.connect(duration.plus(RespClient.DEFAULT_READ_TIMEOUT));
		String seconds = String.format(Locale.ROOT, "%.3f", duration.toMillis() / 1000.0);
		client.send("DEBUG", "SLEEP", seconds);
		CompletableFuture<Void> done = new CompletableFuture<>();
		Thread waiter = new Thread(() -> awaitReply(client, done), "redis-debug-sleep-" + node.port());
		waiter.setDaemon(true);
		waiter.start();
		awaitSleeping(node.pid(), done);
		return done;
	}

	/**
	 * Kill the connections whose client name, or id, equals the argument
	 * ({@code CLIENT KILL ID}); the node's own admin connections are spared.
	 * @param node the node
	 * @param clientNameOrId a client name or a numeric client id
	 * @return how many connections were killed
	 */
	public static long killClients(RedisNode node, String clientNameOrId) {
		long killed = 0;
		for (ClientInfo client : node.clientList()) {
			boolean matches = client.name().equals(clientNameOrId) || Long.toString(client.id()).equals(clientNameOrId);
			if (matches && !client.name().equals(RedisNode.ADMIN_CLIENT_NAME)) {
				Object result = node.command("CLIENT", "KILL", "ID", Long.toString(client.id()));
				killed += (result instanceof Long count) ? count : 0;
			}
		}
		return killed;
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

	/**
	 * A command sent is not yet a command processed: without this, a request sent right
	 * after {@link #debugSleep(RedisNode, Duration)} may be served before the sleep
	 * starts.
	 */
	private static void awaitSleeping(long pid, CompletableFuture<Void> done) {
		long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
		while (!done.isDone() && System.nanoTime() < deadline) {
			String channel = ProcessSignals.waitChannel(pid);
			if (channel.contains("nanosleep")) {
				return;
			}
			if ("?".equals(channel)) {
				// Cannot observe the process: give the server a moment to pick the
				// command up
				Await.sleep(Duration.ofMillis(50));
				return;
			}
			Thread.onSpinWait();
		}
	}

	private static void awaitReply(RespClient client, CompletableFuture<Void> done) {
		try (client) {
			client.readReply();
			done.complete(null);
		}
		catch (RuntimeException ex) {
			done.completeExceptionally(ex);
		}
	}

	private static boolean isStoppedOrUnknown(long pid) {
		char state = ProcessSignals.state(pid);
		return state == 'T' || state == 't' || state == '?';
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
