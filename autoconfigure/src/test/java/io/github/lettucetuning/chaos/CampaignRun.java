package io.github.lettucetuning.chaos;

import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.autoconfigure.timeout.CommandExpiryTimer;
import io.github.lettucetuning.connection.DedicatedConnectionPool;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.testsupport.chaos.FaultInjector;
import io.github.lettucetuning.testsupport.chaos.FaultSchedule;
import io.github.lettucetuning.testsupport.chaos.InjectedFault;
import io.github.lettucetuning.testsupport.chaos.Invariants;
import io.github.lettucetuning.testsupport.chaos.Journal;
import io.github.lettucetuning.testsupport.chaos.Operation;
import io.github.lettucetuning.testsupport.chaos.ReplicationWatch;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.TopologyKind;
import io.github.lettucetuning.timeout.WheelTimer;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.event.RedirectionEventSupport;
import io.lettuce.core.event.connection.ConnectionEvent;
import io.lettuce.core.resource.ClientResources;
import io.netty.util.Timeout;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One campaign run: every set-up in an application context of its own, side by side
 * against the same servers, each with its {@link Traffic} recording into a
 * {@link Journal}, while a {@link FaultInjector} replays one schedule; then, with every
 * context closed, the {@link Invariants} checked per set-up against what the servers
 * hold.
 */
final class CampaignRun {

	// Long enough for an answer after the grace (1 s) and the stall timeout (2 s), with
	// a margin for a loaded 2-core machine
	static final Duration REGULAR_BOUND = Duration.ofSeconds(5);

	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(8);

	static final Duration POP_TIMEOUT = Duration.ofSeconds(1);

	static final Duration RECOVERY_BOUND = Duration.ofSeconds(3);

	static final Invariants INVARIANTS = new Invariants(
			new Invariants.Bounds(REGULAR_BOUND, POP_TIMEOUT.plus(COMMAND_TIMEOUT), RECOVERY_BOUND));

	// Traffic goes on this long after the last fault healed, for the traffic-back and
	// Pub/Sub checks
	private static final Duration TAIL = Duration.ofSeconds(5);

	private static final Duration STARTUP = Duration.ofSeconds(60);

	private static final Duration SETTLE = Duration.ofSeconds(5);

	private static final Duration DRAIN = Duration.ofSeconds(12);

	private static final String TOPOLOGY_REFRESH = "io.lettuce.core.cluster.topology.";

	private final ChaosServers servers;

	private final FaultSchedule schedule;

	private final List<Setup> setups;

	private final long paceMillis;

	private long originNanos;

	CampaignRun(ChaosServers servers, FaultSchedule schedule, List<Setup> setups, long paceMillis) {
		this.servers = servers;
		this.schedule = schedule;
		this.setups = List.copyOf(setups);
		this.paceMillis = paceMillis;
	}

	List<Result> run(ApplicationContextRunner contextRunner) throws Exception {
		this.servers.flush();
		Set<String> threadsBefore = clientThreads();
		List<SetupRun> runs = new ArrayList<>();
		CountDownLatch ready = new CountDownLatch(this.setups.size());
		CountDownLatch stop = new CountDownLatch(1);
		for (Setup setup : this.setups) {
			runs.add(new SetupRun(setup, contextRunner, ready, stop));
		}
		List<InjectedFault> injected = new ArrayList<>();
		Invariants.Replication replication = Invariants.Replication.NONE;
		ReplicationWatch watch = (this.servers.topology() != TopologyKind.STANDALONE)
				? ReplicationWatch.start(this.servers.dataNodes(), Duration.ofMillis(100)) : null;
		try {
			runs.forEach(SetupRun::start);
			if (!ready.await(STARTUP.toMillis(), TimeUnit.MILLISECONDS)) {
				throw new IllegalStateException("Set-ups not started within " + STARTUP + ": " + failures(runs));
			}
			injected.addAll(injectFaults());
		}
		finally {
			stop.countDown();
			for (SetupRun run : runs) {
				run.thread.join(COMMAND_TIMEOUT.plus(STARTUP).toMillis());
			}
			if (watch != null) {
				watch.close();
				replication = watch;
			}
		}
		String failures = failures(runs);
		if (!failures.isEmpty()) {
			throw new IllegalStateException("A set-up failed: " + failures);
		}
		// What the servers hold is read once the topology is whole again (a cluster
		// answers CLUSTERDOWN until its last failover is done)
		this.servers.recover();
		long now = System.nanoTime();
		List<String> unattributed = leftThreads(threadsBefore);
		List<Result> results = new ArrayList<>();
		for (SetupRun run : runs) {
			results.add(run.result(injected, replication, unattributed, now));
		}
		return results;
	}

	private List<InjectedFault> injectFaults() throws Exception {
		try (FaultInjector injector = this.servers.injector()) {
			this.originNanos = System.nanoTime();
			injector.start(this.schedule, this.originNanos);
			try {
				injector.awaitDone(this.schedule.length().plus(Duration.ofSeconds(60)));
			}
			catch (TimeoutException ex) {
				throw new IllegalStateException(behind(injector), ex);
			}
			Thread.sleep(TAIL.toMillis());
			return injector.injected();
		}
	}

	// Faults run late when heals do not converge (each waits its bound): say which, and
	// what the last heals found
	private String behind(FaultInjector injector) {
		List<InjectedFault> injected = injector.injected();
		StringBuilder text = new StringBuilder("The injector fell behind the schedule: ").append(injected.size())
			.append(" of ")
			.append(this.schedule.faults().size())
			.append(" faults done when it should have ended; the last ones:\n");
		injected.stream()
			.skip(Math.max(0, injected.size() - 15))
			.forEach((fault) -> text.append("  ").append(fault).append('\n'));
		return text.toString();
	}

	private static String failures(List<SetupRun> runs) {
		StringBuilder text = new StringBuilder();
		for (SetupRun run : runs) {
			Throwable failure = run.failure.get();
			if (failure != null) {
				text.append(run.setup).append(": ").append(failure).append('\n');
			}
		}
		return text.toString();
	}

	// Connections of a set-up are found by their client name; those without a name (a
	// Sentinel connection) must be gone once every context closed
	private List<String> leftConnections(Setup setup) {
		List<String> leaks = new ArrayList<>();
		for (RedisNode node : this.servers.allNodes()) {
			if (!node.isAlive()) {
				continue;
			}
			for (ClientInfo client : node.clientList()) {
				if (client.name().equals(setup.clientName()) || isUnnamedClient(client)) {
					leaks.add("client connection " + client.addr() + " (" + client.name() + ", last " + client.cmd()
							+ ") on " + node.port());
				}
			}
		}
		return leaks;
	}

	// Not a replication link, not a Sentinel's, not the test support's own
	private static boolean isUnnamedClient(ClientInfo client) {
		String flags = client.fields().getOrDefault("flags", "");
		return client.name().isEmpty() && !flags.contains("S") && !flags.contains("M");
	}

	private List<String> leftThreads(Set<String> threadsBefore) {
		long deadline = System.nanoTime() + SETTLE.toNanos();
		Set<String> threads;
		do {
			threads = clientThreads();
			threads.removeAll(threadsBefore);
			if (threads.isEmpty()) {
				return List.of();
			}
			Traffic.sleep(100);
		}
		while (System.nanoTime() - deadline < 0);
		return threads.stream().map((thread) -> "thread " + thread).toList();
	}

	// The threads a Redis client owns: Lettuce's, Netty's and the starter's
	private static Set<String> clientThreads() {
		Set<String> names = new HashSet<>();
		for (Thread thread : Thread.getAllStackTraces().keySet()) {
			String name = thread.getName();
			if (thread.isAlive() && (name.startsWith("lettuce-") || name.startsWith("redis-"))) {
				names.add(name + "#" + thread.getId());
			}
		}
		return names;
	}

	/**
	 * One set-up's part of the run: its context, on a thread of its own, open from the
	 * warm-up until the faults are done, and what it left behind.
	 */
	private final class SetupRun {

		private final Setup setup;

		private final ApplicationContextRunner contextRunner;

		private final CountDownLatch ready;

		private final CountDownLatch stop;

		private final Journal journal = new Journal();

		private final Traffic traffic;

		private final Thread thread;

		private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

		private final List<String> leaks = new ArrayList<>();

		private final AtomicBoolean signalled = new AtomicBoolean();

		private long inFlight;

		private long drainedMillis = -1;

		private int refreshTimeouts;

		SetupRun(Setup setup, ApplicationContextRunner contextRunner, CountDownLatch ready, CountDownLatch stop) {
			this.setup = setup;
			this.contextRunner = contextRunner;
			this.ready = ready;
			this.stop = stop;
			this.traffic = new Traffic(setup, CampaignRun.this.servers.topology(), this.journal,
					CampaignRun.this.schedule.seed(), CampaignRun.this.paceMillis);
			this.thread = new Thread(this::runContext, "chaos-context-" + setup.clientName());
			this.thread.setDaemon(true);
		}

		void start() {
			this.thread.start();
		}

		private void runContext() {
			try {
				this.contextRunner.withPropertyValues(this.setup.properties())
					.withPropertyValues("spring.data.redis.timeout=" + COMMAND_TIMEOUT.toMillis() + "ms")
					.run(this::inContext);
			}
			catch (Throwable ex) {
				this.failure.set(ex);
			}
			finally {
				signalReady();
			}
		}

		// Once, whether the context started or failed, so the run never waits for it
		private void signalReady() {
			if (this.signalled.compareAndSet(false, true)) {
				this.ready.countDown();
			}
		}

		private void inContext(AssertableApplicationContext context) throws Exception {
			if (context.getStartupFailure() != null) {
				throw new IllegalStateException(context.getStartupFailure());
			}
			warmUp(context);
			traceEvents(context);
			this.traffic.start(context.getBean(StringRedisTemplate.class),
					context.getBean(ReactiveStringRedisTemplate.class), context.getBean(RedisConnectionFactory.class));
			signalReady();
			this.stop.await();
			this.traffic.stop(COMMAND_TIMEOUT.plus(Duration.ofSeconds(10)));
			this.leaks.addAll(leftResources(context));
			this.inFlight = inFlight(context);
		}

		// -Dchaos.trace=true prints Lettuce's connection, topology and redirection events
		// (those of pipelined keys) with their time: what a long wait went through
		private void traceEvents(AssertableApplicationContext context) {
			if (!Boolean.getBoolean("chaos.trace")) {
				return;
			}
			context.getBean(ClientResources.class).eventBus().get().subscribe((event) -> {
				String text = event.toString();
				if (event instanceof RedirectionEventSupport redirect) {
					text = event.getClass().getSimpleName() + " " + redirect.getKey() + " " + redirect.getMessage();
				}
				if (text.contains("pipelined") || event instanceof ConnectionEvent
						|| event instanceof ClusterTopologyChangedEvent) {
					System.out.println("[trace " + LocalTime.now() + "] " + text);
				}
			});
		}

		Result result(List<InjectedFault> injected, Invariants.Replication replication, List<String> threads,
				long now) {
			List<String> leaks = new ArrayList<>(this.leaks);
			leaks.addAll(leftConnections(this.setup));
			leaks.addAll(threads);
			Map<String, @Nullable String> serverValues = CampaignRun.this.servers.values(this.traffic.writtenKeys());
			List<Operation> operations = this.journal.operations();
			Invariants.Verdict verdict = INVARIANTS.check(operations, injected, serverValues, this.journal.received(),
					replication, new Invariants.Afterwards(this.inFlight, leaks), now);
			return new Result(this.setup, CampaignRun.this.servers.topology(), CampaignRun.this.schedule, injected,
					operations, this.journal.received().size(), this.drainedMillis, this.refreshTimeouts,
					CampaignRun.this.originNanos, verdict);
		}

		private long inFlight(AssertableApplicationContext context) {
			long inFlight = 0;
			if (this.setup.starter()) {
				inFlight += context.getBean(OutageGuard.class).waitingCommands();
				if (context.getBean(RedisConnectionFactory.class) instanceof LettuceTuningConnectionFactory tuning) {
					for (int count : tuning.getSharedInFlight()) {
						inFlight += count;
					}
					for (int count : tuning.getReactiveInFlight()) {
						inFlight += count;
					}
				}
			}
			return inFlight;
		}

		// Expiry timer tasks, borrowed pooled connections and in-flight counts once the
		// traffic stopped: all must drain. A few timer tasks are still scheduled then and
		// run out on
		// their own; one that outlives the longest deadline anything sets here (the
		// 10 s connect timeout) is a leak. Stock Boot's are not reachable.
		private List<String> leftResources(AssertableApplicationContext context) {
			if (!this.setup.starter()) {
				return List.of();
			}
			WheelTimer timer = (context.getBean(CommandExpiryTimer.class).currentTimer() instanceof WheelTimer wheel)
					? wheel : null;
			RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
			DedicatedConnectionPool pool = (factory instanceof LettuceTuningConnectionFactory tuning
					&& tuning.getDedicatedConnectionProvider() instanceof DedicatedConnectionPool dedicated) ? dedicated
							: null;
			long start = System.nanoTime();
			long timeouts;
			int borrowed;
			do {
				timeouts = (timer != null) ? timer.pendingTimeouts() : 0;
				borrowed = (pool != null) ? pool.borrowedCount() : 0;
				if (timeouts == 0 && borrowed == 0 && inFlight(context) == 0) {
					this.drainedMillis = (System.nanoTime() - start) / 1_000_000;
					return List.of();
				}
				Traffic.sleep(100);
			}
			while (System.nanoTime() - start < DRAIN.toNanos());
			List<String> leaks = new ArrayList<>();
			if (timeouts != 0 && timer != null) {
				leaks.addAll(leftTimerTasks(timer));
			}
			if (borrowed != 0) {
				leaks.add(borrowed + " pooled connections still borrowed " + DRAIN.toSeconds()
						+ " s after the traffic stopped");
			}
			return leaks;
		}

		// The timer tasks left after the drain, named by the class of their task.
		// Lettuce's
		// cluster topology refresh schedules a timeout per node and request and never
		// cancels it (io.lettuce.core.cluster.topology.Connections): those run out on
		// their
		// own and are counted apart; any other task is a leak. Stopping the timer is how
		// its tasks are listed, so this runs last, just before the context closes.
		private List<String> leftTimerTasks(WheelTimer timer) {
			Map<String, Integer> tasks = new TreeMap<>();
			for (Timeout timeout : timer.stop()) {
				String type = timeout.task().getClass().getName();
				if (type.startsWith(TOPOLOGY_REFRESH)) {
					this.refreshTimeouts++;
				}
				else {
					int lambda = type.indexOf("$$Lambda");
					tasks.merge((lambda > 0) ? type.substring(0, lambda) + " (lambda)" : type, 1, Integer::sum);
				}
			}
			return tasks.isEmpty() ? List.of() : List.of("expiry timer tasks still scheduled " + DRAIN.toSeconds()
					+ " s after the traffic stopped, by task: " + tasks);
		}

	}

	// Opens the connections and loads the classes before the journal starts: the first
	// command of a context is no caller the campaign measures
	private static void warmUp(AssertableApplicationContext context) {
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		template.opsForValue().set("warm-up", "1");
		template.opsForList().leftPop("warm-up-list", Duration.ofMillis(10));
		template.executePipelined((RedisCallback<Object>) (connection) -> {
			connection.stringCommands().get(Traffic.bytes("warm-up"));
			return null;
		});
		context.getBean(ReactiveStringRedisTemplate.class).opsForValue().get("warm-up").block(COMMAND_TIMEOUT);
	}

	/**
	 * What one set-up did in a run and what the checks found.
	 *
	 * @param setup stock Boot or the starter's mode
	 * @param topology the servers' topology
	 * @param schedule the schedule
	 * @param injected what the injector did
	 * @param operations the journal
	 * @param messagesReceived how many Pub/Sub messages the listener received
	 * @param drainedMillis how long after the traffic stopped the starter's timer tasks
	 * and borrowed connections drained, {@code -1} for stock Boot or if they did not
	 * @param refreshTimeouts how many of Lettuce's topology refresh timeouts were still
	 * scheduled after the drain (never cancelled by Lettuce; not leaks)
	 * @param originNanos when the schedule started ({@link System#nanoTime()})
	 * @param verdict the checks' verdict
	 */
	record Result(Setup setup, TopologyKind topology, FaultSchedule schedule, List<InjectedFault> injected,
			List<Operation> operations, int messagesReceived, long drainedMillis, int refreshTimeouts, long originNanos,
			Invariants.Verdict verdict) {

	}

}
