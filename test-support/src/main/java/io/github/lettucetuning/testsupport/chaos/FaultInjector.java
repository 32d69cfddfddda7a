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

import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.fault.NetworkBlackhole;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;

/**
 * Injects a {@link FaultSchedule} into data nodes at its offsets, on threads of its own,
 * so that faults overlap as scheduled, and records what it did. A fault that cannot be
 * injected at its moment (a pause of a node that is down, a blackhole without root) is
 * recorded as skipped, with the reason. {@link #close()} heals whatever is still broken.
 * <p>
 * This slice injects the faults of a standalone server ({@link Topology#STANDALONE}); the
 * Sentinel and cluster kinds are recorded as skipped.
 */
public final class FaultInjector implements AutoCloseable {

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

	private final List<RedisNode> nodes;

	private final ScheduledExecutorService executor;

	private final List<InjectedFault> injected = new CopyOnWriteArrayList<>();

	private final List<CompletableFuture<Void>> done = new CopyOnWriteArrayList<>();

	private final List<NetworkBlackhole> blackholes = new CopyOnWriteArrayList<>();

	/**
	 * Create an injector.
	 * @param nodes the data nodes a fault's target picks from
	 */
	public FaultInjector(List<RedisNode> nodes) {
		this.nodes = List.copyOf(nodes);
		AtomicInteger threads = new AtomicInteger();
		this.executor = Executors.newScheduledThreadPool(4, (task) -> {
			Thread thread = new Thread(task, "chaos-injector-" + threads.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
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
					node.kill();
					healLater(fault, start, finished, "killed " + node.port(), () -> {
						if (!node.isAlive()) {
							node.restart();
						}
					});
				}
				case STOP_RESTART -> {
					stop(node);
					healLater(fault, start, finished, "shut down " + node.port(), () -> {
						if (!node.isAlive()) {
							node.restart();
						}
					});
				}
				case PAUSE -> {
					node.pause();
					healLater(fault, start, finished, "paused " + node.port(), node::resume);
				}
				case BLACKHOLE -> blackhole(fault, node, start, finished);
				case DEBUG_SLEEP -> {
					CompletableFuture<Void> sleep = node.debugSleep(fault.duration());
					sleep.whenComplete((result, failure) -> record(fault, start, false,
							"slept " + node.port() + ((failure != null) ? " (" + failure.getMessage() + ")" : ""),
							finished));
				}
				case CLIENT_KILL_TYPE -> {
					Object killed = node.command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
					record(fault, start, false, "killed " + killed + " client connections", finished);
				}
				case CLIENT_KILL_ADDR -> killOneClient(fault, node, start, finished);
				default -> record(fault, start, true, "not injected on this topology yet", finished);
			}
		}
		catch (RuntimeException ex) {
			record(fault, start, true, ex.getClass().getSimpleName() + ": " + ex.getMessage(), finished);
		}
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
			record(fault, start, true, availability.reason(), finished);
			return;
		}
		NetworkBlackhole blackhole = Faults.blackhole(node);
		this.blackholes.add(blackhole);
		healLater(fault, start, finished, "blackholed " + node.port() + " (" + blackhole.backend() + ")",
				blackhole::heal);
	}

	private void killOneClient(ScheduledFault fault, RedisNode node, long start, CompletableFuture<Void> finished) {
		List<ClientInfo> clients = new ArrayList<>();
		for (ClientInfo client : node.clientList()) {
			if (!client.name().equals(RedisNode.ADMIN_CLIENT_NAME)) {
				clients.add(client);
			}
		}
		if (clients.isEmpty()) {
			record(fault, start, true, "no client connection to kill", finished);
			return;
		}
		clients.sort(Comparator.comparingLong(ClientInfo::id));
		ClientInfo victim = clients.get(fault.target() % clients.size());
		node.command("CLIENT", "KILL", "ADDR", victim.addr());
		record(fault, start, false, "killed " + victim.addr() + " (" + victim.name() + ", last " + victim.cmd() + ")",
				finished);
	}

	private void healLater(ScheduledFault fault, long start, CompletableFuture<Void> finished, String note,
			Runnable heal) {
		this.executor.schedule(() -> {
			try {
				heal.run();
				record(fault, start, false, note, finished);
			}
			catch (RuntimeException ex) {
				record(fault, start, false, note + ", heal failed: " + ex.getMessage(), finished);
			}
		}, fault.duration().toNanos(), TimeUnit.NANOSECONDS);
	}

	private void record(ScheduledFault fault, long start, boolean skipped, String note,
			CompletableFuture<Void> finished) {
		this.injected.add(new InjectedFault(fault, start, System.nanoTime(), skipped, note));
		finished.complete(null);
	}

	/**
	 * Heal what is still broken: continue or restart every node, lift every blackhole,
	 * and stop the injector's threads.
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
			node.recover();
		}
	}

}
