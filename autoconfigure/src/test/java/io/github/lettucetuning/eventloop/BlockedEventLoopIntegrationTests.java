package io.github.lettucetuning.eventloop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.health.LettuceTuningHealthContributorAutoConfiguration;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.metrics.OutageMetrics;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.state.ClientStateReader;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
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
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
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

	// Reads of up to 4 MB at a time instead of Netty's adaptive 64 KB at most.
	private static final NettyCustomizer LARGE_READS = new NettyCustomizer() {

		@Override
		public void afterBootstrapInitialized(Bootstrap bootstrap) {
			bootstrap.option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(4 * 1024 * 1024));
		}

	};

	private final RedisStandalone redis;

	BlockedEventLoopIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.redis.node().command("FLUSHALL");
	}

	@Test
	void aSynchronousCallInsideAReactiveOperatorOnItsConnectionsLoopFailsAtOnceAndSendsNothing() {
		tuned().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			ReactiveStringRedisTemplate reactive = reactive(context);
			template.opsForValue().set("outer", "v");
			LoopPlacement.placeReactiveConnection(this.redis.node(), template, reactive, "outer", true);
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
				assertThatExceptionOfType(BlockingCallRefusedException.class)
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

	// The same call where another loop serves the imperative connection completes on
	// stock Boot, so it must complete with the starter too.
	@Test
	void aSynchronousCallInsideAReactiveOperatorOnAnotherLoopCompletesAsOnStock(CapturedOutput output) {
		stock().run((context) -> assertThat(nestedSetOnAnotherLoop(context)).isEqualTo("sent"));
		tuned().run((context) -> assertThat(nestedSetOnAnotherLoop(context)).isEqualTo("sent"));
		assertThat(output).contains("(ValueOperations.set, called from " + getClass().getName())
			.contains("Logged once for this call site");
	}

	@Test
	void strictModeRefusesTheCallOnAnotherLoopToo() {
		tuned().withPropertyValues("lettuce.tuning.resilience.blocking-call-guard.strict=true").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			ReactiveStringRedisTemplate reactive = reactive(context);
			template.opsForValue().set("outer", "v");
			LoopPlacement.placeReactiveConnection(this.redis.node(), template, reactive, "outer", false);
			Mono<Boolean> nested = reactive.opsForValue()
				.get("outer")
				.map((value) -> template.opsForValue().setIfAbsent("nested", value));
			assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
				.isThrownBy(() -> nested.block(Duration.ofSeconds(5)))
				.withMessageContaining("blocking-call-guard.strict=true refuses every one");
			assertThat(template.hasKey("nested")).isFalse();
		});
	}

	private String nestedSetOnAnotherLoop(ApplicationContext context) throws Exception {
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		ReactiveStringRedisTemplate reactive = reactive(context);
		template.delete("nested");
		template.opsForValue().set("outer", "v");
		LoopPlacement.placeReactiveConnection(this.redis.node(), template, reactive, "outer", false);
		String result = reactive.opsForValue().get("outer").map((value) -> {
			template.opsForValue().set("nested", value);
			return "sent";
		}).block(Duration.ofSeconds(5));
		assertThat(template.opsForValue().get("nested")).isEqualTo("v");
		return result;
	}

	@Test
	void stockBootHangsOnTheSameCallUntilTheCommandTimeout() {
		stock().withPropertyValues("spring.data.redis.timeout=2s").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			ReactiveStringRedisTemplate reactive = reactive(context);
			template.opsForValue().set("outer", "v");
			LoopPlacement.placeReactiveConnection(this.redis.node(), template, reactive, "outer", true);
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
			ClientStateReader state = context.getBean(ClientStateReader.class);
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			new OutageMetrics(state).bindTo(registry);
			assertThat(registry.get("lettuce.tuning.event.loop.blocked").functionCounter().count()).isOne();
			assertThat(registry.get("lettuce.tuning.event.loops.blocked").gauge().value()).isZero();
			ClientState.EventLoops eventLoops = state.read().eventLoops();
			assertThat(eventLoops).isNotNull();
			assertThat(eventLoops.blockedSpells()).isOne();
			assertThat(eventLoops.lastBlocked()).usingRecursiveComparison().isEqualTo(spell);
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
			List<Thread> workers = LoopPlacement.startWorkers(template, 8, failures, Duration.ofSeconds(6));
			Thread.sleep(1000);
			long pid = ProcessHandle.current().pid();
			long seconds = BLOCK.toSeconds();
			Process stopper = new ProcessBuilder("sh", "-c",
					"kill -STOP " + pid + "; sleep " + seconds + "; kill -CONT " + pid)
				.start();
			assertThat(stopper.waitFor(30, TimeUnit.SECONDS)).isTrue();
			LoopPlacement.join(workers);
			assertThat(failures).isEmpty();
			assertThat(context.getBean(OutageGuard.class).outages()).isEmpty();
			EventLoopWatchdog watchdog = context.getBean(EventLoopWatchdog.class);
			assertThat(watchdog.blockedSpells()).isZero();
			// The 3 s stop is one pause, however many loops were busy. A busy machine may
			// add short pauses of its own, each counted and logged once too.
			assertThat(watchdog.pauses()).isPositive();
			assertThat(context.getBean(LettuceHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
			assertThat(
					Pattern.compile("The JVM did not run for about [2-9]\\.\\d s").matcher(output.getAll()).results())
				.hasSize(1);
		});
	}

	@Test
	void aLoopDecodingALargeReplyIsReportedAsDecodingNotAsTheApplication(CapturedOutput output) {
		// Lettuce decodes a reply one read round at a time: Netty reads up to 16 buffers
		// a
		// round, 64 KB each by default, so a round's decoding lasts a few milliseconds,
		// close to what a busy machine's scheduling adds or takes away. An application
		// that reads with larger buffers (as this one does, 4 MB) decodes a large reply
		// in stretches of a hundred milliseconds and more, which the watchdog cannot miss
		// at a 20 ms threshold. Tiny fields make decoding as slow as it gets per byte.
		tuned().withPropertyValues("lettuce.tuning.resilience.blocked-loop-detection.threshold=20ms")
			.withBean(ClientResourcesBuilderCustomizer.class, () -> (builder) -> builder.nettyCustomizer(LARGE_READS))
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				// 1,000,000 fields of one byte: about 22 MB of reply.
				for (int batch = 0; batch < 50; batch++) {
					Map<String, String> fields = new HashMap<>();
					for (int i = 0; i < 20_000; i++) {
						fields.put(String.format("f-%06d", batch * 20_000 + i), "v");
					}
					template.opsForHash().putAll("big", fields);
				}
				EventLoopWatchdog watchdog = context.getBean(EventLoopWatchdog.class);
				long spells = watchdog.blockedSpells();
				// How long a stretch lasts depends on how much a read round finds in the
				// socket: read the hash until one stretch outlasts the threshold.
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
				while (!output.getAll().contains("it is decoding a large Redis reply")
						&& System.nanoTime() < deadline) {
					assertThat(template.<String, String>opsForHash().entries("big")).hasSize(1_000_000);
				}
				System.out.println("[spells] " + watchdog.blockedSpells() + " " + watchdog.lastBlocked());
				assertThat(watchdog.blockedSpells()).isGreaterThan(spells);
				assertThat(output).contains("it is decoding a large Redis reply")
					.contains("HSCAN")
					.doesNotContain("code running on it blocks it, at io.lettuce.core.output.")
					.doesNotContain("code running on it blocks it, at io.lettuce.core.protocol.RedisStateMachine")
					.doesNotContain("code running on it blocks it, at io.lettuce.core.codec.");
			});
	}

	// Eight threads of SET and GET for 6 s; after 1 s a reactive GET whose operator works
	// for 3 s on the event loop that read its reply. Returns the commands that failed.
	private List<Throwable> blockWhileLoaded(ApplicationContext context, boolean sameLoop,
			@Nullable Runnable duringBlock) throws Exception {
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		ReactiveStringRedisTemplate reactive = reactive(context);
		template.opsForValue().set("slow", "v");
		LoopPlacement.placeReactiveConnection(this.redis.node(), template, reactive, "slow", sameLoop);
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		List<Thread> workers = LoopPlacement.startWorkers(template, 8, failures, Duration.ofSeconds(6));
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
		LoopPlacement.join(workers);
		return failures;
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
