package io.github.lettucetuning.chaos;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.lettucetuning.resilience.RedisStalledException;
import io.github.lettucetuning.resilience.RedisUnreachableException;
import io.github.lettucetuning.testsupport.chaos.Journal;
import io.github.lettucetuning.testsupport.chaos.OpKind;
import io.github.lettucetuning.testsupport.chaos.Outcome;
import io.github.lettucetuning.testsupport.chaos.Values;
import io.github.lettucetuning.testsupport.topology.TopologyKind;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The traffic of one set-up: workers issuing synchronous, asynchronous, reactive (with
 * cancels and give-ups), pipelined, transactional, blocking and Pub/Sub commands through
 * Spring Data into a {@link Journal}, each write to a key of its own, never overwritten,
 * so that a write the server lost, or applied after its caller was told it failed, stays
 * visible. Keys and the channel start with the set-up's client name.
 */
final class Traffic {

	private static final boolean TRACE = Boolean.getBoolean("chaos.trace");

	private final Setup setup;

	private final TopologyKind topology;

	private final Journal journal;

	private final long seed;

	private final long paceMillis;

	private final Set<String> writtenKeys = ConcurrentHashMap.newKeySet();

	private final List<Thread> workers = new ArrayList<>();

	private volatile boolean running = true;

	private @Nullable RedisMessageListenerContainer listener;

	// One thread for the run's traces, only with -Dchaos.trace=true.
	private final @Nullable ScheduledExecutorService tracer = TRACE
			? Executors.newSingleThreadScheduledExecutor((task) -> new Thread(task, "chaos-trace")) : null;

	Traffic(Setup setup, TopologyKind topology, Journal journal, long seed, long paceMillis) {
		this.setup = setup;
		this.topology = topology;
		this.journal = journal;
		this.seed = seed;
		this.paceMillis = paceMillis;
	}

	Set<String> writtenKeys() {
		return this.writtenKeys;
	}

	String channel() {
		return this.setup.clientName() + ":events";
	}

	/**
	 * Subscribe the listener, then start every worker.
	 * @param template the synchronous template
	 * @param reactive the reactive template
	 * @param factory the connection factory the listener subscribes with
	 */
	void start(StringRedisTemplate template, ReactiveStringRedisTemplate reactive, RedisConnectionFactory factory) {
		this.listener = subscribe(factory);
		worker("sync", (random, sequence) -> sync(template, sequence));
		worker("async", (random, sequence) -> async(template, sequence));
		worker("reactive", (random, sequence) -> reactive(reactive, random, sequence));
		worker("pipelined", (random, sequence) -> pipelined(template, sequence));
		if (this.topology != TopologyKind.CLUSTER) {
			// Spring Data has no MULTI on a cluster connection
			worker("transactional", (random, sequence) -> transactional(template, sequence));
		}
		worker("pusher", (random, sequence) -> push(template, sequence));
		worker("popper", (random, sequence) -> pop(template));
		worker("publisher", (random, sequence) -> publish(template, sequence));
	}

	/**
	 * Stop the workers, wait for them, and unsubscribe the listener.
	 * @param timeout how long to wait for each worker
	 */
	void stop(Duration timeout) throws Exception {
		this.running = false;
		for (Thread worker : this.workers) {
			worker.join(timeout.toMillis());
		}
		RedisMessageListenerContainer container = this.listener;
		if (container != null) {
			// The last messages published are on their way to the listener
			sleep(500);
			container.destroy();
		}
		if (this.tracer != null) {
			this.tracer.shutdownNow();
		}
	}

	private RedisMessageListenerContainer subscribe(RedisConnectionFactory factory) {
		RedisMessageListenerContainer container = new RedisMessageListenerContainer();
		container.setConnectionFactory(factory);
		container.addMessageListener(
				(message, pattern) -> this.journal.received(new String(message.getChannel(), StandardCharsets.UTF_8),
						new String(message.getBody(), StandardCharsets.UTF_8)),
				new ChannelTopic(channel()));
		container.afterPropertiesSet();
		container.start();
		return container;
	}

	private void worker(String name, Step step) {
		Thread thread = new Thread(() -> {
			SplittableRandom random = new SplittableRandom(this.seed ^ name.hashCode());
			long sequence = 0;
			while (this.running) {
				step.run(random, ++sequence);
				sleep(this.paceMillis);
			}
		}, this.setup.clientName() + "-" + name);
		thread.setDaemon(true);
		thread.start();
		this.workers.add(thread);
	}

	// The commands of one pipeline share a slot, so that on a cluster they go to one
	// node: Spring Data reports a pipeline's first failure for all of its commands
	private String pipelineKey(long pipeline, int index) {
		String key = "{" + this.setup.clientName() + ":pipelined:" + pipeline + "}:" + index;
		this.writtenKeys.add(key);
		return key;
	}

	private String key(String worker, long sequence) {
		String key = this.setup.clientName() + ":" + worker + ":" + sequence;
		this.writtenKeys.add(key);
		return key;
	}

	private void sync(StringRedisTemplate template, long sequence) {
		String key = key("sync", sequence);
		String value = Values.encode(key, sequence);
		record("sync", OpKind.SYNC_SET, key, value, () -> {
			template.opsForValue().set(key, value);
			return null;
		});
		record("sync", OpKind.SYNC_GET, key, null, () -> template.opsForValue().get(key));
	}

	@SuppressWarnings("unchecked")
	private void async(StringRedisTemplate template, long sequence) {
		String key = key("async", sequence);
		String value = Values.encode(key, sequence);
		Journal.Entry set = this.journal.begin("async", OpKind.ASYNC_SET, key, value);
		Journal.Entry get = this.journal.begin("async", OpKind.ASYNC_GET, key, null);
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
				.get(CampaignRun.COMMAND_TIMEOUT.plusSeconds(2).toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (Exception ex) {
			// Recorded by the callbacks, or left pending
		}
	}

	private static void complete(Journal.Entry entry, RedisFuture<?> future) {
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
			Journal.Entry cancelled = this.journal.begin("reactive", OpKind.REACTIVE_SET, key, value);
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
			String key = pipelineKey(sequence, i);
			String value = Values.encode(key, sequence * 3 + i);
			sets.add(new String[] { key, value });
			entries.add(this.journal.begin("pipelined", OpKind.PIPELINED_SET, key, value));
		}
		long issuedNanos = System.nanoTime();
		long[] phases = new long[3];
		try {
			ScheduledFuture<?> dump = scheduleThreadDump(sets.get(0)[0]);
			try {
				pipeline(template, sets, phases);
			}
			finally {
				if (dump != null) {
					dump.cancel(false);
				}
			}
			// Where a long wait went, should the bounded-wait check report one: the
			// connection (a pool's borrow), the replies or the release
			String reply = "connection after %d ms, sent after %d ms, replies after %d ms, released after %d ms"
				.formatted(millisSince(issuedNanos, phases[0]), millisSince(issuedNanos, phases[1]),
						millisSince(issuedNanos, phases[2]), millisSince(issuedNanos, System.nanoTime()));
			if (TRACE && System.nanoTime() - issuedNanos > 3_000_000_000L) {
				System.out.println("[trace " + LocalTime.now() + "] pipeline " + sequence + ": " + reply);
			}
			entries.forEach((entry) -> entry.succeeded(reply));
		}
		catch (RedisPipelineException ex) {
			// Each command of a pipeline ends on its own: on a cluster they go to
			// different
			// nodes, and one node's outage fails only the commands sent to it
			List<Object> results = ex.getPipelineResult();
			for (int i = 0; i < entries.size(); i++) {
				Object result = (i < results.size()) ? results.get(i) : ex;
				if (result == ex) {
					// Which command failed, and whether the others ran, is not said: a
					// command after a failed one may have gone out once the connection
					// was back (found by a 30-minute Sentinel run in pooled mode)
					entries.get(i).failed(Outcome.OTHER_ERROR, ex);
				}
				else if (result instanceof Throwable failure) {
					entries.get(i).failed(classify(failure), failure);
				}
				else {
					entries.get(i).succeeded(null);
				}
			}
		}
		catch (RuntimeException ex) {
			entries.forEach((entry) -> entry.failed(classify(ex), ex));
		}
	}

	private static long millisSince(long startNanos, long nanos) {
		return (nanos == 0) ? -1 : (nanos - startNanos) / 1_000_000;
	}

	// What executePipelined does, with the end of the replies marked apart from the
	// connection's release
	private static void pipeline(StringRedisTemplate template, List<String[]> sets, long[] phases) {
		template.execute((RedisCallback<Object>) (connection) -> {
			phases[0] = System.nanoTime();
			connection.openPipeline();
			try {
				for (String[] set : sets) {
					connection.stringCommands().set(bytes(set[0]), bytes(set[1]));
				}
				phases[1] = System.nanoTime();
			}
			finally {
				connection.closePipeline();
				phases[2] = System.nanoTime();
			}
			return null;
		});
	}

	// With -Dchaos.trace=true, the threads of a pipeline slower than 3 s: where the
	// caller and the event loops are while it waits
	private @Nullable ScheduledFuture<?> scheduleThreadDump(String key) {
		ScheduledExecutorService tracer = this.tracer;
		if (tracer == null) {
			return null;
		}
		Thread caller = Thread.currentThread();
		return tracer.schedule(() -> System.out.println(threads(key, caller)), 3, TimeUnit.SECONDS);
	}

	private static String threads(String key, Thread caller) {
		StringBuilder out = new StringBuilder("[trace " + LocalTime.now() + "] pipeline slow: " + key + ", threads:\n");
		Thread.getAllStackTraces().forEach((thread, stack) -> {
			if (thread == caller || thread.getName().startsWith("lettuce")) {
				out.append("  ").append(thread.getName()).append(' ').append(thread.getState()).append('\n');
				for (int i = 0; i < Math.min(stack.length, 25); i++) {
					out.append("    at ").append(stack[i]).append('\n');
				}
			}
		});
		return out.toString();
	}

	private void transactional(StringRedisTemplate template, long sequence) {
		List<Journal.Entry> entries = new ArrayList<>();
		List<String[]> sets = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			String key = key("transactional", sequence * 2 + i);
			String value = Values.encode(key, sequence * 2 + i);
			sets.add(new String[] { key, value });
			entries.add(this.journal.begin("transactional", OpKind.TRANSACTIONAL_SET, key, value));
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

	private String listKey() {
		return this.setup.clientName() + ":list";
	}

	private void push(StringRedisTemplate template, long sequence) {
		String list = listKey();
		String value = Values.encode(list, sequence);
		record("pusher", OpKind.PUSH, list, value, () -> {
			template.opsForList().rightPush(list, value);
			return null;
		});
		sleep(20);
	}

	private void pop(StringRedisTemplate template) {
		record("popper", OpKind.BLOCKING_POP, listKey(), null,
				() -> template.opsForList().leftPop(listKey(), CampaignRun.POP_TIMEOUT));
	}

	private void publish(StringRedisTemplate template, long sequence) {
		String value = Values.encode(channel(), sequence);
		record("publisher", OpKind.PUBLISH, channel(), value, () -> {
			template.convertAndSend(channel(), value);
			return null;
		});
		sleep(20);
	}

	private void record(String worker, OpKind kind, String key, @Nullable String value, Call call) {
		Journal.Entry entry = this.journal.begin(worker, kind, key, value);
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
			else if (outcome == Outcome.OTHER_ERROR && isConnectionError(cause)) {
				outcome = Outcome.CONNECTION_ERROR;
			}
		}
		return outcome;
	}

	private static boolean isConnectionError(Throwable cause) {
		return cause instanceof RedisConnectionException || cause instanceof RedisConnectionFailureException
				|| cause instanceof java.io.IOException || (cause instanceof RedisException
						&& String.valueOf(cause.getMessage()).contains("Connection closed"));
	}

	static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	static void sleep(long millis) {
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

}
