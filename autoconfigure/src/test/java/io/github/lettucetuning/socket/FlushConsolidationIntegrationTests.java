package io.github.lettucetuning.socket;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.socket.NettyCustomizerContribution;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Flush consolidation against a real server: concurrent commands reach Redis in far fewer
 * reads, every command still gets its own answer, pipelines and transactions work, and a
 * killed connection leaves no command waiting on a flush that never comes.
 */
@RedisStandaloneTest
@Timeout(120)
class FlushConsolidationIntegrationTests {

	private static final int THREADS = 64;

	private static final int OPERATIONS = 300;

	private final RedisStandalone redis;

	private final List<Channel> channels = new CopyOnWriteArrayList<>();

	private ApplicationContextRunner contextRunner;

	FlushConsolidationIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.redis.node().command("FLUSHALL");
		NettyCustomizerContribution channelCapture = (tracing) -> new NettyCustomizer() {

			@Override
			public void afterChannelInitialized(Channel channel) {
				FlushConsolidationIntegrationTests.this.channels.add(channel);
			}

		};
		this.contextRunner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withBean("channelCapture", NettyCustomizerContribution.class, () -> channelCapture)
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=2s");
	}

	@Test
	void concurrentCommandsReachRedisInFarFewerReads() {
		Load merged = load("lettuce.tuning.socket.flush-consolidation.enabled=true");
		assertThat(merged.pipelines()).isNotEmpty()
			.allSatisfy((names) -> assertThat(names).contains(FlushConsolidation.HANDLER_NAME));
		Load separate = load("lettuce.tuning.socket.flush-consolidation.enabled=false");
		assertThat(separate.pipelines()).isNotEmpty()
			.allSatisfy((names) -> assertThat(names).doesNotContain(FlushConsolidation.HANDLER_NAME));
		// Without merging, loopback TCP coalesces a few writes (about 2 to 3 commands per
		// read under load); merged, a write carries the commands of every thread waiting
		// at that moment.
		assertThat(merged.commandsPerRead())
			.as("commands per read, merged %.1f vs separate %.1f", merged.commandsPerRead(), separate.commandsPerRead())
			.isGreaterThan(2 * separate.commandsPerRead())
			.isGreaterThan(4);
	}

	@Test
	void pipelinesAndTransactionsWorkOverMergedFlushes() {
		this.contextRunner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			List<Object> pipelined = template.executePipelined(new SessionCallback<Object>() {

				@Override
				public <K, V> Object execute(RedisOperations<K, V> operations) throws DataAccessException {
					RedisOperations<String, String> strings = strings(operations);
					for (int i = 0; i < 1000; i++) {
						strings.opsForValue().increment("counter");
					}
					return null;
				}

			});
			assertThat(pipelined).hasSize(1000).last().isEqualTo(1000L);
			List<Object> exec = template.execute(new SessionCallback<List<Object>>() {

				@Override
				public <K, V> List<Object> execute(RedisOperations<K, V> operations) throws DataAccessException {
					RedisOperations<String, String> strings = strings(operations);
					strings.multi();
					strings.opsForValue().set("a", "1");
					strings.opsForValue().increment("counter");
					return strings.exec();
				}

			});
			assertThat(exec).containsExactly(true, 1001L);
		});
	}

	@Test
	void aKilledConnectionFailsOrCompletesEveryCommandAndTheClientRecovers() {
		this.contextRunner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("warm", "up");
			AtomicLong completed = new AtomicLong();
			AtomicLong failed = new AtomicLong();
			AtomicLong timedOut = new AtomicLong();
			AtomicReference<Throwable> unexpected = new AtomicReference<>();
			onManyThreads((key) -> {
				try {
					template.opsForValue().set(key, key);
					completed.incrementAndGet();
				}
				catch (DataAccessException ex) {
					(isTimeout(ex) ? timedOut : failed).incrementAndGet();
				}
				catch (RuntimeException ex) {
					unexpected.compareAndSet(null, ex);
				}
			}, () -> {
				while (completed.get() < THREADS * 20L) {
					Thread.onSpinWait();
				}
				assertThat(this.redis.node().command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"))
					.isNotEqualTo(0L);
			});
			assertThat(unexpected.get()).isNull();
			// A flush lost when the connection dies leaves its command unwritten until it
			// times out: a timeout is the symptom of a lost flush, not an acceptable
			// failure.
			assertThat(timedOut.get()).as("commands that timed out").isZero();
			assertThat(completed.get() + failed.get()).isEqualTo((long) THREADS * OPERATIONS);
			// Commands that completed were really written
			assertThat(Long.parseLong(this.redis.node().commandAsString("DBSIZE")))
				.isGreaterThanOrEqualTo(completed.get());
			template.opsForValue().set("after", "kill");
			assertThat(template.opsForValue().get("after")).isEqualTo("kill");
		});
	}

	private static boolean isTimeout(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof QueryTimeoutException || cause instanceof RedisCommandTimeoutException) {
				return true;
			}
		}
		return false;
	}

	@SuppressWarnings("unchecked")
	private static RedisOperations<String, String> strings(RedisOperations<?, ?> operations) {
		return (RedisOperations<String, String>) operations;
	}

	// Concurrent SET and GET on many threads; the pipelines of the open channels are read
	// before the context closes them.
	private Load load(String setting) {
		this.channels.clear();
		Load[] load = new Load[1];
		this.contextRunner.withPropertyValues(setting).run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("warm", "up");
			Map<String, String> before = this.redis.node().info("stats");
			onManyThreads((key) -> {
				template.opsForValue().set(key, key);
				assertThat(template.opsForValue().get(key)).isEqualTo(key);
			}, () -> {
			});
			Map<String, String> after = this.redis.node().info("stats");
			List<List<String>> pipelines = this.channels.stream()
				.filter(Channel::isActive)
				.map((channel) -> channel.pipeline().names())
				.toList();
			load[0] = new Load((double) delta(before, after, "total_commands_processed")
					/ delta(before, after, "total_reads_processed"), pipelines);
		});
		return load[0];
	}

	// Runs OPERATIONS calls of the operation, each with a key of its own, on each of
	// THREADS threads, and meanwhile the action on this thread. Each command completes or
	// fails within its 2 s timeout, so none waits for a flush that never comes; a
	// thread's assertion error fails the test.
	private static void onManyThreads(Consumer<String> operation, ThrowingRunnable meanwhile) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < THREADS; t++) {
				int thread = t;
				futures.add(executor.submit(() -> {
					for (int i = 0; i < OPERATIONS; i++) {
						operation.accept("key" + thread + "-" + i);
					}
				}));
			}
			meanwhile.run();
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	private static long delta(Map<String, String> before, Map<String, String> after, String field) {
		return Long.parseLong(after.get(field)) - Long.parseLong(before.get(field));
	}

	private record Load(double commandsPerRead, List<List<String>> pipelines) {
	}

	@FunctionalInterface
	private interface ThrowingRunnable {

		void run() throws Exception;

	}

}
