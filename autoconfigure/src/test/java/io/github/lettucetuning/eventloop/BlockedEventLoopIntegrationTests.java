package io.github.lettucetuning.eventloop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.health.LettuceTuningHealthContributorAutoConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.endpoint.LiveState;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.metrics.OutageMetrics;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContext;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * What happens when the application holds one of the client's event loops, against a real
 * server and beside stock Spring Boot: a synchronous call made inside a reactive operator
 * (which runs on the loop that read the reply), a loop blocked for 3 s by slow work in
 * such an operator, and the whole JVM stopped for 3 s. Redis is healthy throughout:
 * nothing may be blamed on it.
 */
@RedisStandaloneTest
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class BlockedEventLoopIntegrationTests {

	private static final Duration BLOCK = Duration.ofSeconds(3);

	private final RedisStandalone redis;

	BlockedEventLoopIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.redis.node().command("FLUSHALL");
	}

	@ParameterizedTest(name = "imperative and reactive connection on the same loop: {0}")
	@ValueSource(booleans = { true, false })
	void aSynchronousCallInsideAReactiveOperatorFailsAtOnceAndSendsNothing(boolean sameLoop) {
		tuned().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			ReactiveStringRedisTemplate reactive = reactive(context);
			template.opsForValue().set("outer", "v");
			placeReactiveConnection(template, reactive, sameLoop);
			List<Duration> refusals = new ArrayList<>();
			for (int attempt = 0; attempt < 5; attempt++) {
				AtomicReference<String> thread = new AtomicReference<>();
				AtomicLong nestedNanos = new AtomicLong();
				Mono<String> nested = reactive.opsForValue().get("outer").map((value) -> {
					thread.set(Thread.currentThread().getName());
					long start = System.nanoTime();
					try {
						template.opsForValue().set("nested", value);
						return "sent";
					}
					finally {
						nestedNanos.set(System.nanoTime() - start);
					}
				});
				assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
					.isThrownBy(() -> nested.block(Duration.ofSeconds(5)))
					.withMessageContaining("ran on " + thread.get())
					.withMessageContaining("(ValueOperations.set, called from " + getClass().getName())
					.withMessageContaining("publishOn(Schedulers.boundedElastic())");
				assertThat(thread.get()).startsWith("lettuce-");
				refusals.add(Duration.ofNanos(nestedNanos.get()));
			}
			System.out.println("[refused in] " + refusals);
			// The first attempt also loads the classes that word the message; a later one
			// may meet a GC pause or a preempted thread on a busy machine.
			assertThat(refusals.subList(1, refusals.size()))
				.allSatisfy((refusal) -> assertThat(refusal).isLessThan(Duration.ofMillis(100)));
			assertThat(refusals.subList(1, refusals.size()).stream().min(Duration::compareTo).orElseThrow())
				.isLessThan(Duration.ofMillis(1));
			assertThat(template.hasKey("nested")).isFalse();
			assertThat(template.opsForValue().get("outer")).isEqualTo("v");
		});
	}

	@Test
	void stockBootHangsOnTheSameCallUntilTheCommandTimeout() {
		stock().withPropertyValues("spring.data.redis.timeout=2s").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			ReactiveStringRedisTemplate reactive = reactive(context);
			template.opsForValue().set("outer", "v");
			placeReactiveConnection(template, reactive, true);
			Mono<Boolean> nested = reactive.opsForValue()
				.get("outer")
				.map((value) -> template.opsForValue().setIfAbsent("nested", value));
			long start = System.nanoTime();
			assertThatExceptionOfType(QueryTimeoutException.class)
				.isThrownBy(() -> nested.block(Duration.ofSeconds(10)));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1900));
		});
	}

	@Test
	void reactorsBlockIsRefusedOnAnEventLoop() {
		tuned().run((context) -> {
			ReactiveStringRedisTemplate reactive = reactive(context);
			reactive.opsForValue().set("outer", "v").block(Duration.ofSeconds(5));
			Mono<String> nested = reactive.opsForValue()
				.get("outer")
				.map((value) -> reactive.opsForValue().get("outer").block(Duration.ofSeconds(5)));
			assertThatIllegalStateException().isThrownBy(() -> nested.block(Duration.ofSeconds(5)))
				.withMessageContaining("are blocking, which is not supported in thread lettuce-");
		});
	}

	@ParameterizedTest(name = "imperative and reactive connection on the same loop: {0}")
	@ValueSource(booleans = { true, false })
	void aLoopBlockedBySlowWorkFailsNoCommandKeepsHealthUpAndIsNamed(boolean sameLoop, CapturedOutput output) {
		List<Throwable> stockFailures = new CopyOnWriteArrayList<>();
		stock().run((context) -> stockFailures.addAll(blockWhileLoaded(context, sameLoop, null)));
		assertThat(stockFailures).as("commands stock Boot failed").isEmpty();
		tuned().run((context) -> {
			AtomicReference<Health> healthDuringBlock = new AtomicReference<>();
			List<Throwable> failures = blockWhileLoaded(context, sameLoop,
					() -> healthDuringBlock.set(context.getBean(LettuceHealthIndicator.class).health()));
			assertThat(failures).as("commands the starter failed").isEmpty();
			assertThat(healthDuringBlock.get().getStatus()).isEqualTo(Status.UP);
			EventLoopWatchdog watchdog = context.getBean(EventLoopWatchdog.class);
			assertThat(watchdog.blockedSpells()).isEqualTo(1);
			assertThat(watchdog.blockedNow()).isEmpty();
			BlockedEventLoop spell = watchdog.lastBlocked();
			assertThat(spell).isNotNull();
			assertThat(spell.thread()).startsWith("lettuce-");
			assertThat(spell.duration()).isBetween(Duration.ofMillis(2500), Duration.ofMillis(4000));
			assertThat(spell.blockedAt()).startsWith(getClass().getName() + ".sleep(");
			OutageGuard guard = context.getBean(OutageGuard.class);
			assertThat(guard.outages()).isEmpty();
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			new OutageMetrics(guard).bindTo(registry);
			assertThat(registry.get("lettuce.tuning.event.loop.blocked").functionCounter().count()).isOne();
			assertThat(registry.get("lettuce.tuning.event.loops.blocked").gauge().value()).isZero();
			LiveState.EventLoops eventLoops = LiveState
				.of(context.getBean(LettuceTuningConnectionFactory.class),
						context.getBean(ClientResources.class).timer(), null, guard, null)
				.eventLoops();
			assertThat(eventLoops).isNotNull();
			assertThat(eventLoops.blockedSpells()).isOne();
			assertThat(eventLoops.lastBlocked()).isEqualTo(spell);
			assertThat(output).contains("Lettuce event loop " + spell.thread() + " has not run for")
				.contains("Stack of " + spell.thread())
				.doesNotContain("unreachable")
				.doesNotContain("DOWN");
		});
	}

	@Test
	void aStoppedJvmIsNoStallAndNoBlockedLoop(CapturedOutput output) {
		tuned().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			List<Thread> workers = startWorkers(template, failures, Duration.ofSeconds(6));
			Thread.sleep(1000);
			long pid = ProcessHandle.current().pid();
			long seconds = BLOCK.toSeconds();
			Process stopper = new ProcessBuilder("sh", "-c",
					"kill -STOP " + pid + "; sleep " + seconds + "; kill -CONT " + pid)
				.start();
			assertThat(stopper.waitFor(30, TimeUnit.SECONDS)).isTrue();
			join(workers);
			assertThat(failures).isEmpty();
			assertThat(context.getBean(OutageGuard.class).outages()).isEmpty();
			EventLoopWatchdog watchdog = context.getBean(EventLoopWatchdog.class);
			assertThat(watchdog.blockedSpells()).isZero();
			assertThat(watchdog.pauses()).isGreaterThanOrEqualTo(1);
			assertThat(context.getBean(LettuceHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
			assertThat(output).contains("The JVM did not run for about");
		});
	}

	// Eight threads of SET and GET for 6 s; after 1 s a reactive GET whose operator works
	// for 3 s on the event loop that read its reply. Returns the commands that failed.
	private List<Throwable> blockWhileLoaded(ApplicationContext context, boolean sameLoop,
			@Nullable Runnable duringBlock) throws Exception {
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		ReactiveStringRedisTemplate reactive = reactive(context);
		template.opsForValue().set("slow", "v");
		placeReactiveConnection(template, reactive, sameLoop);
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> workers = startWorkers(template, failures, Duration.ofSeconds(6));
		Thread.sleep(1000);
		CompletableFuture<String> slow = reactive.opsForValue().get("slow").map((value) -> {
			sleep(BLOCK);
			return value;
		}).toFuture();
		if (duringBlock != null) {
			Thread.sleep(1500);
			duringBlock.run();
		}
		assertThat(slow).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("v");
		join(workers);
		return failures;
	}

	// Lettuce hands each new channel the next event loop in turn. The reactive connection
	// opens last, so killing it makes its reconnect take the next loop, until it sits
	// where the test wants it: the users found both connections on one loop after
	// such a reconnect.
	private void placeReactiveConnection(StringRedisTemplate template, ReactiveStringRedisTemplate reactive,
			boolean sameLoop) throws Exception {
		String imperativeLoop = imperativeLoop(template);
		for (int attempt = 0; attempt < 16; attempt++) {
			String reactiveLoop = reactive.opsForValue()
				.get("outer")
				.map((value) -> Thread.currentThread().getName())
				.defaultIfEmpty("")
				.map((ignored) -> Thread.currentThread().getName())
				.block(Duration.ofSeconds(5));
			if (reactiveLoop.startsWith("lettuce-") && reactiveLoop.equals(imperativeLoop) == sameLoop) {
				return;
			}
			ClientInfo newest = this.redis.node()
				.clientList()
				.stream()
				.filter((client) -> !client.name().equals(RedisNode.ADMIN_CLIENT_NAME))
				.max(Comparator.comparingLong(ClientInfo::id))
				.orElseThrow();
			this.redis.node().killClient(Long.toString(newest.id()));
			await().atMost(Duration.ofSeconds(5))
				.ignoreExceptions()
				.until(() -> reactive.opsForValue()
					.get("outer")
					.defaultIfEmpty("")
					.block(Duration.ofSeconds(1)) != null);
		}
		throw new AssertionError("The reactive connection never reached the wanted event loop");
	}

	// The thread a command's callback runs on when the command completes: its loop. A
	// reply
	// that beats the callback runs it on the caller, so try again.
	@SuppressWarnings("unchecked")
	private static String imperativeLoop(StringRedisTemplate template) throws Exception {
		for (int attempt = 0; attempt < 100; attempt++) {
			RedisFuture<String> ping = template.execute((RedisCallback<RedisFuture<String>>) (
					connection) -> ((RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection())
						.ping());
			String thread = ping.toCompletableFuture()
				.thenApply((pong) -> Thread.currentThread().getName())
				.get(5, TimeUnit.SECONDS);
			if (thread.startsWith("lettuce-")) {
				return thread;
			}
		}
		throw new AssertionError("No PING completed after its callback was attached");
	}

	private static List<Thread> startWorkers(StringRedisTemplate template, List<Throwable> failures,
			Duration duration) {
		long end = System.nanoTime() + duration.toNanos();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < 8; t++) {
			String key = "key-" + t;
			Thread worker = new Thread(() -> {
				long i = 0;
				while (System.nanoTime() < end) {
					try {
						template.opsForValue().set(key, Long.toString(i));
						assertThat(template.opsForValue().get(key)).isEqualTo(Long.toString(i));
						i++;
					}
					catch (RuntimeException | AssertionError ex) {
						failures.add(ex);
					}
				}
			}, "worker-" + t);
			worker.start();
			workers.add(worker);
		}
		return workers;
	}

	private static void join(List<Thread> workers) throws InterruptedException {
		for (Thread worker : workers) {
			worker.join(TimeUnit.SECONDS.toMillis(30));
			assertThat(worker.isAlive()).isFalse();
		}
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static ReactiveStringRedisTemplate reactive(ApplicationContext context) {
		return new ReactiveStringRedisTemplate(context.getBean(ReactiveRedisConnectionFactory.class));
	}

	private ApplicationContextRunner tuned() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class,
					DataRedisAutoConfiguration.class, LettuceTuningHealthContributorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port());
	}

	// One shared imperative and one shared reactive connection, as in the tuned setup:
	// with commons-pool2 present, stock Boot would pool the imperative commands.
	private ApplicationContextRunner stock() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.lettuce.pool.enabled=false");
	}

}
