package io.github.lettucetuning.chaos;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.resilience.RedisStalledException;
import io.github.lettucetuning.resilience.RedisUnreachableException;
import io.github.lettucetuning.testsupport.chaos.FaultInjector;
import io.github.lettucetuning.testsupport.chaos.FaultSchedule;
import io.github.lettucetuning.testsupport.chaos.InjectedFault;
import io.github.lettucetuning.testsupport.chaos.Invariants;
import io.github.lettucetuning.testsupport.chaos.Journal;
import io.github.lettucetuning.testsupport.chaos.OpKind;
import io.github.lettucetuning.testsupport.chaos.Operation;
import io.github.lettucetuning.testsupport.chaos.Outcome;
import io.github.lettucetuning.testsupport.chaos.Values;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One campaign run: a Spring Boot context (stock Boot or the starter) against one
 * standalone server, workers issuing every kind of traffic through Spring Data's
 * templates into a {@link Journal} while a {@link FaultInjector} replays a schedule, then
 * the {@link Invariants} checked against what the server holds.
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

	// Traffic goes on this long after the last fault healed, for the traffic-back check
	private static final Duration TAIL = Duration.ofSeconds(5);

	private static final int KEYS_PER_WORKER = 4;

	private final RedisNode node;

	private final FaultSchedule schedule;

	private final boolean starter;

	private final Journal journal = new Journal();

	private final AtomicBoolean running = new AtomicBoolean(true);

	private final Set<String> writtenKeys = ConcurrentHashMap.newKeySet();

	CampaignRun(RedisNode node, FaultSchedule schedule, boolean starter) {
		this.node = node;
		this.schedule = schedule;
		this.starter = starter;
	}

	Result run(ApplicationContextRunner contextRunner) {
		this.node.command("FLUSHALL");
		Set<String> threadsBefore = clientThreads();
		List<InjectedFault> injected = new ArrayList<>();
		long[] inFlight = new long[1];
		contextRunner
			.withPropertyValues("lettuce.tuning.enabled=" + this.starter,
					"spring.data.redis.timeout=" + COMMAND_TIMEOUT.toMillis() + "ms")
			.run((context) -> {
				warmUp(context);
				List<Thread> workers = startWorkers(context);
				long origin = System.nanoTime();
				try (FaultInjector injector = new FaultInjector(List.of(this.node))) {
					injector.start(this.schedule, origin);
					injector.awaitDone(this.schedule.length().plus(Duration.ofSeconds(30)));
					Thread.sleep(TAIL.toMillis());
					injected.addAll(injector.injected());
				}
				finally {
					this.running.set(false);
				}
				for (Thread worker : workers) {
					worker.join(COMMAND_TIMEOUT.plus(Duration.ofSeconds(10)).toMillis());
				}
				inFlight[0] = inFlight(context);
			});
		long now = System.nanoTime();
		Map<String, @Nullable String> serverValues = serverValues();
		List<String> leaks = leaks(threadsBefore);
		List<Operation> operations = this.journal.operations();
		Invariants.Verdict verdict = INVARIANTS.check(operations, injected, serverValues,
				new Invariants.Afterwards(inFlight[0], leaks), now);
		return new Result(this.starter ? "starter (default mode)" : "stock Boot", this.schedule, injected, operations,
				verdict);
	}

	// MGET in batches: the synchronous worker writes a key of its own per write
	private Map<String, @Nullable String> serverValues() {
		Map<String, @Nullable String> values = new LinkedHashMap<>();
		List<String> keys = new ArrayList<>(this.writtenKeys);
		for (int from = 0; from < keys.size(); from += 500) {
			List<String> batch = keys.subList(from, Math.min(keys.size(), from + 500));
			List<String> command = new ArrayList<>(batch.size() + 1);
			command.add("MGET");
			command.addAll(batch);
			Object reply = this.node.command(command.toArray(String[]::new));
			List<?> replies = (reply instanceof List<?> list) ? list : List.of();
			for (int i = 0; i < batch.size(); i++) {
				Object value = (i < replies.size()) ? replies.get(i) : null;
				values.put(batch.get(i), (value != null) ? value.toString() : null);
			}
		}
		return values;
	}

	private long inFlight(AssertableApplicationContext context) {
		long inFlight = 0;
		if (this.starter) {
			inFlight += context.getBean(OutageGuard.class).waitingCommands();
			RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
			if (factory instanceof LettuceTuningConnectionFactory tuning) {
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

	// Opens the connections and loads the classes before the journal starts: the first
	// command of a context is no caller the campaign measures
	private static void warmUp(AssertableApplicationContext context) {
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		template.opsForValue().set("warm-up", "1");
		template.opsForList().leftPop("warm-up-list", Duration.ofMillis(10));
		template.executePipelined((RedisCallback<Object>) (connection) -> {
			connection.stringCommands().get(bytes("warm-up"));
			return null;
		});
		context.getBean(ReactiveStringRedisTemplate.class).opsForValue().get("warm-up").block(COMMAND_TIMEOUT);
	}

	private List<Thread> startWorkers(AssertableApplicationContext context) {
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		ReactiveStringRedisTemplate reactive = context.getBean(ReactiveStringRedisTemplate.class);
		List<Thread> workers = new ArrayList<>();
		workers.add(worker("sync", (random, sequence) -> sync(template, random, sequence)));
		workers.add(worker("async", (random, sequence) -> async(template, random, sequence)));
		workers.add(worker("reactive", (random, sequence) -> reactive(reactive, random, sequence)));
		workers.add(worker("pipelined", (random, sequence) -> pipelined(template, sequence)));
		workers.add(worker("transactional", (random, sequence) -> transactional(template, sequence)));
		workers.add(worker("pusher", (random, sequence) -> push(template, sequence)));
		workers.add(worker("popper", (random, sequence) -> pop(template)));
		return workers;
	}

	private Thread worker(String name, Step step) {
		Thread thread = new Thread(() -> {
			SplittableRandom random = new SplittableRandom(this.schedule.seed() ^ name.hashCode());
			long sequence = 0;
			while (this.running.get()) {
				step.run(random, ++sequence);
				sleep(5);
			}
		}, "chaos-" + name);
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	// A key per write, never overwritten: a write the server lost, or one it applied
	// after its caller was told it failed, stays visible
	private void sync(StringRedisTemplate template, SplittableRandom random, long sequence) {
		String key = "sync:" + sequence;
		this.writtenKeys.add(key);
		String value = Values.encode(key, sequence);
		record("sync", OpKind.SYNC_SET, key, value, () -> {
			template.opsForValue().set(key, value);
			return null;
		});
		record("sync", OpKind.SYNC_GET, key, null, () -> template.opsForValue().get(key));
	}

	@SuppressWarnings("unchecked")
	private void async(StringRedisTemplate template, SplittableRandom random, long sequence) {
		String key = key("async", sequence);
		String value = Values.encode(key, sequence);
		Journal.Entry set = begin("async", OpKind.ASYNC_SET, key, value);
		Journal.Entry get = begin("async", OpKind.ASYNC_GET, key, null);
		RedisFuture<?>[] futures;
		try {
			futures = template.execute((RedisCallback<RedisFuture<?>[]>) (connection) -> {
				RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) connection
					.getNativeConnection();
				return new RedisFuture<?>[] { commands.set(bytes(key), bytes(value)), commands.get(bytes(key)) };
			});
		}
		catch (RuntimeException ex) {
			set.failed(classify(ex), ex);
			get.failed(classify(ex), ex);
			return;
		}
		complete(set, futures[0]);
		complete(get, futures[1]);
		// The caller waits for both, but not for ever: what has not ended by then stays
		// pending in the journal, and the bounded-wait check reports it
		try {
			CompletableFuture.allOf(futures[0].toCompletableFuture(), futures[1].toCompletableFuture())
				.get(COMMAND_TIMEOUT.plusSeconds(2).toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (Exception ex) {
			// Recorded by the callbacks, or left pending
		}
	}

	private void complete(Journal.Entry entry, RedisFuture<?> future) {
		future.whenComplete((result, failure) -> {
			if (failure != null) {
				entry.failed(classify(failure), failure);
			}
			else {
				entry.succeeded((result instanceof byte[] reply) ? new String(reply, StandardCharsets.UTF_8) : null);
			}
		});
	}

	private void reactive(ReactiveStringRedisTemplate reactive, SplittableRandom random, long sequence) {
		String key = key("reactive", sequence);
		String value = Values.encode(key, sequence);
		if (random.nextInt(10) == 0) {
			// A caller that cancels its write at once: the server may or may not run it
			Journal.Entry cancelled = begin("reactive", OpKind.REACTIVE_SET, key, value);
			Disposable subscription = reactive.opsForValue()
				.set(key, value)
				.subscribe((ok) -> cancelled.succeeded(null),
						(failure) -> cancelled.failed(classify(failure), failure));
			sleep(random.nextInt(3));
			subscription.dispose();
			cancelled.failed(Outcome.CANCELLED, new CancellationException("cancelled by the caller"));
			return;
		}
		// A caller that gives up after a second and a half
		Duration patience = Duration.ofMillis(1500);
		record("reactive", OpKind.REACTIVE_SET, key, value, () -> {
			reactive.opsForValue().set(key, value).timeout(patience).block();
			return null;
		});
		record("reactive", OpKind.REACTIVE_GET, key, null,
				() -> reactive.opsForValue().get(key).timeout(patience).block());
	}

	private void pipelined(StringRedisTemplate template, long sequence) {
		List<Journal.Entry> entries = new ArrayList<>();
		List<String[]> sets = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			String key = "pipelined:" + i;
			String value = Values.encode(key, sequence);
			this.writtenKeys.add(key);
			sets.add(new String[] { key, value });
			entries.add(begin("pipelined", OpKind.PIPELINED_SET, key, value));
		}
		try {
			template.executePipelined((RedisCallback<Object>) (connection) -> {
				for (String[] set : sets) {
					connection.stringCommands().set(bytes(set[0]), bytes(set[1]));
				}
				return null;
			});
			entries.forEach((entry) -> entry.succeeded(null));
		}
		catch (RuntimeException ex) {
			entries.forEach((entry) -> entry.failed(classify(ex), ex));
		}
	}

	private void transactional(StringRedisTemplate template, long sequence) {
		List<Journal.Entry> entries = new ArrayList<>();
		List<String[]> sets = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			String key = "transactional:" + i;
			String value = Values.encode(key, sequence);
			this.writtenKeys.add(key);
			sets.add(new String[] { key, value });
			entries.add(begin("transactional", OpKind.TRANSACTIONAL_SET, key, value));
		}
		try {
			List<Object> results = template.execute(new SessionCallback<List<Object>>() {

				@Override
				@SuppressWarnings({ "unchecked", "rawtypes" })
				public List<Object> execute(RedisOperations operations) {
					operations.multi();
					for (String[] set : sets) {
						operations.opsForValue().set(set[0], set[1]);
					}
					return operations.exec();
				}

			});
			if (results == null || results.size() != sets.size()) {
				IllegalStateException aborted = new IllegalStateException("EXEC returned " + results);
				entries.forEach((entry) -> entry.failed(Outcome.OTHER_ERROR, aborted));
			}
			else {
				entries.forEach((entry) -> entry.succeeded(null));
			}
		}
		catch (RuntimeException ex) {
			entries.forEach((entry) -> entry.failed(classify(ex), ex));
		}
	}

	private void push(StringRedisTemplate template, long sequence) {
		String value = Values.encode("list", sequence);
		record("pusher", OpKind.PUSH, "list", value, () -> {
			template.opsForList().rightPush("list", value);
			return null;
		});
		sleep(20);
	}

	private void pop(StringRedisTemplate template) {
		record("popper", OpKind.BLOCKING_POP, "list", null, () -> template.opsForList().leftPop("list", POP_TIMEOUT));
	}

	private String key(String worker, long sequence) {
		String key = worker + ":" + (sequence % KEYS_PER_WORKER);
		this.writtenKeys.add(key);
		return key;
	}

	private Journal.Entry begin(String worker, OpKind kind, String key, @Nullable String value) {
		return this.journal.begin(worker, kind, key, value);
	}

	private void record(String worker, OpKind kind, String key, @Nullable String value, Call call) {
		Journal.Entry entry = begin(worker, kind, key, value);
		try {
			entry.succeeded(call.call());
		}
		catch (Exception ex) {
			entry.failed(classify(ex), ex);
		}
	}

	// How the caller was told its command ended: the innermost cause that says it
	static Outcome classify(Throwable failure) {
		Outcome outcome = Outcome.OTHER_ERROR;
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof RedisUnreachableException) {
				return Outcome.FAIL_FAST;
			}
			if (cause instanceof RedisStalledException) {
				return Outcome.STALLED;
			}
			if (cause instanceof RedisCommandTimeoutException || cause instanceof QueryTimeoutException) {
				outcome = Outcome.TIMEOUT;
			}
			else if (cause instanceof TimeoutException || cause instanceof CancellationException) {
				outcome = Outcome.CANCELLED;
			}
			else if (outcome == Outcome.OTHER_ERROR
					&& (cause instanceof RedisConnectionException || cause instanceof RedisConnectionFailureException
							|| cause instanceof java.io.IOException || (cause instanceof RedisException
									&& String.valueOf(cause.getMessage()).contains("Connection closed")))) {
				outcome = Outcome.CONNECTION_ERROR;
			}
		}
		return outcome;
	}

	private List<String> leaks(Set<String> threadsBefore) {
		List<String> leaks = new ArrayList<>();
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		List<ClientInfo> clients;
		Set<String> threads;
		do {
			clients = new ArrayList<>(this.node.clientList());
			clients.removeIf((client) -> client.name().equals(RedisNode.ADMIN_CLIENT_NAME));
			threads = clientThreads();
			threads.removeAll(threadsBefore);
			if (clients.isEmpty() && threads.isEmpty()) {
				return leaks;
			}
			sleep(100);
		}
		while (System.nanoTime() - deadline < 0);
		clients.forEach((client) -> leaks.add("client connection " + client.addr() + " (" + client.name() + ")"));
		threads.forEach((thread) -> leaks.add("thread " + thread));
		return leaks;
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

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@FunctionalInterface
	private interface Step {

		void run(SplittableRandom random, long sequence);

	}

	@FunctionalInterface
	private interface Call {

		@Nullable String call() throws Exception;

	}

	/**
	 * What one run did and what the checks found.
	 *
	 * @param setup stock Boot or the starter's mode
	 * @param schedule the schedule
	 * @param injected what the injector did
	 * @param operations the journal
	 * @param verdict the checks' verdict
	 */
	record Result(String setup, FaultSchedule schedule, List<InjectedFault> injected, List<Operation> operations,
			Invariants.Verdict verdict) {

	}

}
