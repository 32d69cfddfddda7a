package io.github.lettucetuning.connection;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every connection mode with {@code spring.threads.virtual.enabled=true} and 1,000
 * virtual threads started at once against a real server, so that they all race for the
 * lazy open of the shared connections (or for the pool). No operation fails, and JFR
 * records no virtual thread pinned in lettuce-tuning's code. Virtual threads need JDK 21;
 * on an older JVM the tests are skipped: run them with {@code JAVA_HOME} set to a JDK 21+
 * (for example {@code JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw ...}).
 */
@RedisStandaloneTest
@Timeout(180)
class VirtualThreadsIntegrationTests {

	private static final int THREADS = 1000;

	private static final AtomicInteger apps = new AtomicInteger();

	private final RedisStandalone redis;

	VirtualThreadsIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		assumeTrue(Runtime.version().feature() >= 21, () -> "Virtual threads need JDK 21 or later, this JVM is "
				+ Runtime.version() + ": run with JAVA_HOME set to a JDK 21+ to test them");
	}

	@ParameterizedTest
	@ValueSource(strings = { "shared", "multi", "pooled" })
	void thousandVirtualThreadsRaceForConnectionsWithoutFailureOrPinning(String mode, @TempDir Path temp) {
		// A first application loads every class on the way: loading a class pins the
		// virtual threads that load it or wait for it, wherever that happens.
		contextRunner(mode).run((context) -> assertNoneFailed(mode, runLoad(context, 100)));
		contextRunner(mode).run((context) -> {
			List<RuntimeException> failures = new ArrayList<>();
			List<RecordedEvent> pinned = recordPinning(temp, () -> failures.addAll(runLoad(context, THREADS)));
			assertNoneFailed(mode, failures);
			assertThat(this.redis.node().commandAsString("DBSIZE")).isEqualTo(String.valueOf(THREADS * 5));
			assertThat(pinned).as("virtual threads pinned in lettuce-tuning code")
				.filteredOn(VirtualThreadsIntegrationTests::inOurCode)
				.isEmpty();
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			assertThat(factory.getSharedInFlight()).containsOnly(0);
		});
	}

	private ApplicationContextRunner contextRunner(String mode) {
		return TopologiesIntegrationSupport.contextRunner("virtual-it-" + apps.incrementAndGet())
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(), "spring.threads.virtual.enabled=true",
					"lettuce.tuning.connection.mode=" + mode, "lettuce.tuning.connection.multi.size=4",
					"spring.data.redis.lettuce.pool.max-active=16");
	}

	// Each virtual thread writes and reads five keys, and reads one back reactively.
	private List<RuntimeException> runLoad(ApplicationContext context, int threads) throws Exception {
		this.redis.node().command("FLUSHALL");
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		ReactiveStringRedisTemplate reactive = context.getBean(ReactiveStringRedisTemplate.class);
		AtomicLong virtual = new AtomicLong();
		List<RuntimeException> failures = runOnVirtualThreads(threads, (i) -> {
			if (isVirtual(Thread.currentThread())) {
				virtual.incrementAndGet();
			}
			for (int op = 0; op < 5; op++) {
				String key = "vt:" + i + ":" + op;
				template.opsForValue().set(key, "v");
				check(template.opsForValue().get(key));
			}
			check(reactive.opsForValue().get("vt:" + i + ":0").block(Duration.ofSeconds(10)));
		});
		assertThat(virtual.get()).isEqualTo(threads);
		return failures;
	}

	// Not AssertJ: a thousand threads waiting for its classes to initialise would each be
	// recorded as pinned.
	private static void check(String value) {
		if (!"v".equals(value)) {
			throw new IllegalStateException("Read " + value + " instead of v");
		}
	}

	private static List<RuntimeException> runOnVirtualThreads(int threads, IntConsumer operation) throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		Queue<RuntimeException> failures = new ConcurrentLinkedQueue<>();
		ExecutorService executor = virtualThreadPerTaskExecutor();
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				futures.add(executor.submit(() -> {
					start.await();
					try {
						operation.accept(thread);
					}
					catch (RuntimeException ex) {
						failures.add(ex);
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : futures) {
				future.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
			assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
		return List.copyOf(failures);
	}

	// The first failure's stack trace says which command failed and why, which a count
	// alone does not.
	private static void assertNoneFailed(String mode, List<RuntimeException> failures) {
		StringWriter first = new StringWriter();
		if (!failures.isEmpty()) {
			failures.get(0).printStackTrace(new PrintWriter(first));
		}
		assertThat(failures)
			.as(() -> failures.size() + " operations failed in " + mode + " mode, the first with\n" + first)
			.isEmpty();
	}

	private static List<RecordedEvent> recordPinning(Path temp, ThrowingRunnable load) throws Exception {
		Path file = temp.resolve("pinning.jfr");
		try (Recording recording = new Recording()) {
			recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
			recording.start();
			load.run();
			recording.stop();
			recording.dump(file);
		}
		// Other events, Lettuce's own among them, are enabled by default: keep the
		// pinning ones.
		return Files.exists(file) ? RecordingFile.readAllEvents(file)
			.stream()
			.filter((event) -> event.getEventType().getName().equals("jdk.VirtualThreadPinned"))
			.toList() : List.of();
	}

	private static boolean inOurCode(RecordedEvent event) {
		return event.getStackTrace() != null && event.getStackTrace()
			.getFrames()
			.stream()
			.map((frame) -> frame.getMethod().getType().getName())
			.anyMatch((type) -> type.startsWith("io.github.lettucetuning.")
					&& !type.startsWith(VirtualThreadsIntegrationTests.class.getName()));
	}

	// Compiled for Java 17: the JDK 21 API is reached reflectively.
	private static ExecutorService virtualThreadPerTaskExecutor() throws ReflectiveOperationException {
		return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
	}

	private static boolean isVirtual(Thread thread) {
		try {
			return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		}
		catch (ReflectiveOperationException ex) {
			return false;
		}
	}

	@FunctionalInterface
	private interface ThrowingRunnable {

		void run() throws Exception;

	}

}
