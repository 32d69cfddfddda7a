package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.lettucetuning.testsupport.fault.Fault;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.fault.NetworkBlackhole;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import io.github.lettucetuning.testsupport.topology.TopologyKind;

/**
 * Injects a {@link FaultSchedule} into the data nodes of a topology at its offsets, on
 * threads of its own, so that faults overlap as scheduled, and records what it did. A
 * fault that cannot be injected at its moment (a pause of a node that is down, a failover
 * with nothing to fail over to, a blackhole without root) is recorded as skipped, with
 * the reason. {@link #close()} heals whatever is still broken.
 * <p>
 * Node faults pick their node by {@code target % dataNodes} among the data nodes (not the
 * Sentinels), in a stable order. On Sentinel and cluster topologies every heal is
 * followed by a bounded reconciliation (Sentinel: the data nodes that do not follow the
 * agreed master are made to, as Sentinel would; cluster: {@code cluster_state:ok}
 * everywhere), and the fault counts as healed when it is done, since only then is the
 * topology usable again. A reconciliation that does not converge is noted as
 * {@code heal incomplete}, never thrown.
 */
public final class FaultInjector implements AutoCloseable {

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

	private final TopologyFaults topology;

	private final List<RedisNode> nodes;

	private final ScheduledExecutorService executor;

	private final List<InjectedFault> injected = new CopyOnWriteArrayList<>();

	private final List<CompletableFuture<Void>> done = new CopyOnWriteArrayList<>();

	private final List<NetworkBlackhole> blackholes = new CopyOnWriteArrayList<>();

	private FaultInjector(TopologyFaults topology) {
		this.topology = topology;
		this.nodes = topology.dataNodes();
		AtomicInteger threads = new AtomicInteger();
		// Reconciliations and failovers block for seconds: enough threads that a fault
		// still starts on time while others heal
		this.executor = Executors.newScheduledThreadPool(6, (task) -> {
			Thread thread = new Thread(task, "chaos-injector-" + threads.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	/**
	 * Create an injector for one server.
	 * @param node the server
	 * @return the injector
	 */
	public static FaultInjector standalone(RedisNode node) {
		return new FaultInjector(new StandaloneFaults(node));
	}

	/**
	 * Create an injector for a master, a replica and their Sentinels.
	 * @param topology the running topology
	 * @return the injector
	 */
	public static FaultInjector sentinel(RedisSentinelTopology topology) {
		return new FaultInjector(new SentinelFaults(topology));
	}

	/**
	 * Create an injector for a cluster.
	 * @param topology the running cluster
	 * @return the injector
	 */
	public static FaultInjector cluster(RedisClusterTopology topology) {
		return new FaultInjector(new ClusterFaults(topology));
	}

	/**
	 * Return the topology this injector injects into.
	 * @return the topology
	 */
	public TopologyKind topology() {
		return this.topology.topology();
	}

	/**
	 * Schedule every fault of a schedule, relative to a start.
	 * @param schedule the schedule
	 * @param originNanos the campaign's start ({@link System#nanoTime()})
	 */
	public void start(FaultSchedule schedule, long originNanos) {
		for (ScheduledFault fault : schedule.faults()) {
			CompletableFuture<Void> finished = new CompletableFuture<>();
			this.done.add(finished);
			long delay = originNanos + fault.offset().toNanos() - System.nanoTime();
			this.executor.schedule(() -> inject(fault, finished), Math.max(0, delay), TimeUnit.NANOSECONDS);
		}
	}

	/**
	 * Wait until every fault has been injected and healed.
	 * @param timeout how long to wait at most
	 * @throws TimeoutException if they are not done by then
	 */
	public void awaitDone(Duration timeout) throws TimeoutException {
		try {
			CompletableFuture.allOf(this.done.toArray(CompletableFuture[]::new))
				.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new TimeoutException("Interrupted");
		}
		catch (java.util.concurrent.ExecutionException ex) {
			throw new IllegalStateException(ex.getCause());
		}
	}

	/**
	 * Return what was injected so far, by schedule order.
	 * @return the injected faults
	 */
	public List<InjectedFault> injected() {
		List<InjectedFault> injected = new ArrayList<>(this.injected);
		injected.sort(Comparator.comparingInt((fault) -> fault.fault().index()));
		return injected;
	}

	private void inject(ScheduledFault fault, CompletableFuture<Void> finished) {
		RedisNode node = this.nodes.get(fault.target() % this.nodes.size());
		long start = System.nanoTime();
		try {
			switch (fault.kind()) {
				case KILL -> {
					boolean master = requireUp(node) && this.topology.isMaster(node);
					Faults.kill(node);
					healLater(fault, start, master, finished, "killed " + describe(node, master), () -> restart(node));
				}
				case STOP_RESTART -> {
					// A paused node would not answer SHUTDOWN
					requireRunning(node);
					boolean master = this.topology.isMaster(node);
					stop(node);
					healLater(fault, start, master, finished, "shut down " + describe(node, master),
							() -> restart(node));
				}
				case PAUSE -> {
					requireRunning(node);
					Fault pause = Faults.pause(node);
					healLater(fault, start, false, finished, "paused " + node.port(), pause::heal);
				}
				case BLACKHOLE -> blackhole(fault, node, start, finished);
				case DEBUG_SLEEP -> debugSleep(fault, node, start, finished);
				case CLIENT_KILL_TYPE -> {
					requireRunning(node);
					Object killed = node.command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
					record(fault, start, false, false, "killed " + killed + " client connections on " + node.port(),
							finished);
				}
				case CLIENT_KILL_ADDR -> killOneClient(fault, node, start, finished);
				case SENTINEL_FAILOVER, CLUSTER_FAILOVER ->
					record(fault, start, false, false, this.topology.failover(fault), finished);
				case RESHARD -> record(fault, start, false, false, this.topology.reshard(fault), finished);
				case REPLICA_LAG -> {
					RedisNode replica = this.topology.laggingReplica(fault);
					Fault lag = Faults.pause(replica);
					healLater(fault, start, false, finished, "replica " + replica.port() + " lagged", lag::heal);
				}
			}
		}
		catch (TopologyFaults.NotInjectable ex) {
			record(fault, start, true, false, ex.getMessage(), finished);
		}
		catch (RuntimeException ex) {
			record(fault, start, true, false, ex.getClass().getSimpleName() + ": " + ex.getMessage(), finished);
		}
	}

	private static String describe(RedisNode node, boolean master) {
		return node.port() + (master ? " (master)" : "");
	}

	private static boolean requireUp(RedisNode node) {
		if (!node.isAlive()) {
			throw new TopologyFaults.NotInjectable(node.port() + " is down");
		}
		return true;
	}

	private static void requireRunning(RedisNode node) {
		requireUp(node);
		if (node.isPaused()) {
			throw new TopologyFaults.NotInjectable(node.port() + " is paused");
		}
	}

	private static void restart(RedisNode node) {
		if (!node.isAlive()) {
			node.restart();
		}
	}

	private void debugSleep(ScheduledFault fault, RedisNode node, long start, CompletableFuture<Void> finished) {
		requireRunning(node);
		CompletableFuture<Void> sleep = Faults.debugSleep(node, fault.duration());
		// Reconcile on the injector's threads, not on the node's reply waiter
		sleep.whenCompleteAsync((result, failure) -> {
			String note = "slept " + node.port() + ((failure != null) ? " (" + failure.getMessage() + ")" : "");
			record(fault, start, false, false, reconciled(note), finished);
		}, this.executor);
	}

	private void stop(RedisNode node) {
		try {
			node.command("SHUTDOWN", "NOSAVE");
		}
		catch (RuntimeException ex) {
			// The server closes the connection instead of answering
		}
		long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
		while (node.isAlive() && System.nanoTime() - deadline < 0) {
			Thread.onSpinWait();
		}
		if (node.isAlive()) {
			throw new IllegalStateException(node + " still runs " + STOP_TIMEOUT + " after SHUTDOWN NOSAVE");
		}
	}

	private void blackhole(ScheduledFault fault, RedisNode node, long start, CompletableFuture<Void> finished) {
		NetworkBlackhole.Availability availability = NetworkBlackhole.availability();
		if (!availability.available()) {
			record(fault, start, true, false, availability.reason(), finished);
			return;
		}
		NetworkBlackhole blackhole = Faults.blackhole(node);
		this.blackholes.add(blackhole);
		healLater(fault, start, false, finished, "blackholed " + node.port() + " (" + blackhole.backend() + ")",
				blackhole::heal);
	}

	private void killOneClient(ScheduledFault fault, RedisNode node, long start, CompletableFuture<Void> finished) {
		requireRunning(node);
		List<ClientInfo> clients = new ArrayList<>();
		for (ClientInfo client : node.clientList()) {
			if (!client.name().equals(RedisNode.ADMIN_CLIENT_NAME)) {
				clients.add(client);
			}
		}
		if (clients.isEmpty()) {
			record(fault, start, true, false, "no client connection on " + node.port() + " to kill", finished);
			return;
		}
		clients.sort(Comparator.comparingLong(ClientInfo::id));
		ClientInfo victim = clients.get(fault.target() % clients.size());
		node.command("CLIENT", "KILL", "ADDR", victim.addr());
		record(fault, start, false, false,
				"killed " + victim.addr() + " (" + victim.name() + ", last " + victim.cmd() + ")", finished);
	}

	private void healLater(ScheduledFault fault, long start, boolean losesWrites, CompletableFuture<Void> finished,
			String note, Runnable heal) {
		this.executor.schedule(() -> {
			String healed = note;
			try {
				heal.run();
			}
			catch (RuntimeException ex) {
				healed = note + ", heal failed: " + ex.getMessage();
			}
			record(fault, start, false, losesWrites, reconciled(healed), finished);
		}, fault.duration().toNanos(), TimeUnit.NANOSECONDS);
	}

	private String reconciled(String note) {
		try {
			String unreconciled = this.topology.reconcile();
			return (unreconciled != null) ? note + ", " + unreconciled : note;
		}
		catch (RuntimeException ex) {
			return note + ", heal incomplete: " + ex.getMessage();
		}
	}

	private void record(ScheduledFault fault, long start, boolean skipped, boolean losesWrites, String note,
			CompletableFuture<Void> finished) {
		this.injected.add(new InjectedFault(fault, start, System.nanoTime(), skipped, losesWrites, note));
		finished.complete(null);
	}

	/**
	 * Heal what is still broken: stop the injector's threads, lift every blackhole,
	 * continue or restart every data node, and reconcile the topology once.
	 */
	@Override
	public void close() {
		this.executor.shutdownNow();
		try {
			this.executor.awaitTermination(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		for (NetworkBlackhole blackhole : this.blackholes) {
			blackhole.heal();
		}
		for (RedisNode node : this.nodes) {
			try {
				Faults.recover(node);
			}
			catch (RuntimeException ex) {
				// Recover the others; the reconciliation below tells what is left
			}
		}
		this.topology.reconcile();
	}

}
