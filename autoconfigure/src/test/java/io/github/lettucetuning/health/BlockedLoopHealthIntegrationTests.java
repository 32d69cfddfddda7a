package io.github.lettucetuning.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.health.LettuceTuningHealthContributorAutoConfiguration;
import io.github.lettucetuning.eventloop.LoopPlacement;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.fault.NetworkBlackhole;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code redis} health while the application blocks the event loop that carries both
 * shared connections (the imperative one the check uses and the reactive one whose
 * operator blocks), against a real server under load: {@code UP} with the loop named for
 * a block shorter than the command timeout, however many requests share a check;
 * {@code DOWN}, naming the loop, for a block longer than it, and {@code UP} once it ends;
 * {@code DOWN} for Redis when Redis itself stops answering during a block.
 */
@RedisStandaloneTest
@Timeout(120)
class BlockedLoopHealthIntegrationTests {

	private final RedisStandalone redis;

	BlockedLoopHealthIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.redis.node().command("FLUSHALL");
	}

	@AfterEach
	void restore() {
		Faults.recover(this.redis.node());
	}

	@Test
	void everyRequestDuringAShortBlockIsUpAndNamesTheLoopWhetherItStartsOrJoinsACheck() {
		tuned().run((context) -> {
			LettuceHealthIndicator indicator = context.getBean(LettuceHealthIndicator.class);
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			String loop = placeReactiveConnectionOnTheSameLoop(context);
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			List<Thread> workers = LoopPlacement.startWorkers(template, 4, failures, Duration.ofSeconds(7));
			Thread.sleep(1000);
			CompletableFuture<String> block = block(context, Duration.ofSeconds(3));
			// Eight callers polling at once: one starts each check, the others join it.
			List<Health> answers = pollUntil(indicator, 8, block);
			LoopPlacement.join(workers);
			assertThat(failures).as("commands failed").isEmpty();
			assertThat(answers).hasSizeGreaterThanOrEqualTo(8);
			assertThat(answers).allSatisfy(
					(health) -> assertThat(health.getStatus()).as(health.getDetails().toString()).isEqualTo(Status.UP));
			List<Health> timedOut = answers.stream()
				.filter((health) -> String.valueOf(health.getDetails().get("check")).startsWith("no answer"))
				.toList();
			// At least the callers of the first check during the block timed out on it.
			assertThat(timedOut).hasSizeGreaterThanOrEqualTo(2);
			assertThat(timedOut).allSatisfy((health) -> {
				assertThat(blockedThreads(health)).contains(loop);
				assertThat((String) health.getDetails().get("check"))
					.contains("Redis answered a PING on a separate connection");
			});
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void aBlockLongerThanTheCommandTimeoutIsDownForTheClientAndUpOnceItEnds() {
		// A check shorter than the bound, so that answers come in before it.
		tuned().withPropertyValues("spring.data.redis.timeout=2s", "lettuce.tuning.health.timeout=500ms")
			.run((context) -> {
				LettuceHealthIndicator indicator = context.getBean(LettuceHealthIndicator.class);
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				String loop = placeReactiveConnectionOnTheSameLoop(context);
				List<Thread> workers = LoopPlacement.startWorkers(template, 4, new CopyOnWriteArrayList<>(),
						Duration.ofSeconds(9));
				Thread.sleep(1000);
				long start = System.nanoTime();
				CompletableFuture<String> block = block(context, Duration.ofSeconds(6));
				List<Answer> answers = new CopyOnWriteArrayList<>();
				while (!block.isDone()) {
					Health health = indicator.health();
					answers.add(new Answer(Duration.ofNanos(System.nanoTime() - start), health));
					Thread.sleep(100);
				}
				LoopPlacement.join(workers);
				answers.forEach((answer) -> System.out.println("[health] " + answer));
				// Before the bound: a blocked loop, not a failure. Some margin for the
				// time
				// the
				// operator takes to start blocking.
				assertThat(answers).filteredOn((answer) -> answer.at().compareTo(Duration.ofMillis(1800)) < 0)
					.isNotEmpty()
					.allSatisfy((answer) -> assertThat(answer.health().getStatus()).isEqualTo(Status.UP));
				List<Answer> past = answers.stream()
					.filter((answer) -> answer.at().compareTo(Duration.ofMillis(3000)) > 0
							&& answer.at().compareTo(Duration.ofMillis(5500)) < 0)
					.toList();
				assertThat(past).isNotEmpty().allSatisfy((answer) -> {
					assertThat(answer.health().getStatus()).isEqualTo(Status.DOWN);
					assertThat((String) answer.health().getDetails().get("error"))
						.startsWith("Lettuce event loop " + loop + " has been blocked for ")
						.contains(" at " + getClass().getName() + ".sleep(")
						.contains("longer than the command timeout (2.0 s, spring.data.redis.timeout)")
						.contains("not Redis");
					assertThat(blockedThreads(answer.health())).contains(loop);
				});
				await().atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(100))
					.untilAsserted(() -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));
			});
	}

	@Test
	void redisStoppedDuringABlockIsDownForRedis() {
		redisSilentDuringABlockIsDownForRedis(() -> Faults.pause(this.redis.node())::heal);
	}

	@Test
	void redisBlackholedDuringABlockIsDownForRedis() {
		NetworkBlackhole.assumeAvailable();
		redisSilentDuringABlockIsDownForRedis(() -> Faults.blackhole(this.redis.node())::heal);
	}

	private void redisSilentDuringABlockIsDownForRedis(Fault fault) {
		tuned().run((context) -> {
			LettuceHealthIndicator indicator = context.getBean(LettuceHealthIndicator.class);
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			String loop = placeReactiveConnectionOnTheSameLoop(context);
			List<Thread> workers = LoopPlacement.startWorkers(template, 4, new CopyOnWriteArrayList<>(),
					Duration.ofSeconds(3));
			Thread.sleep(1000);
			CompletableFuture<String> block = block(context, Duration.ofSeconds(8));
			Thread.sleep(700);
			Runnable heal = fault.inject();
			try {
				Health health = indicator.health();
				assertThat(block).isNotDone();
				assertThat(health.getStatus()).as(health.getDetails().toString()).isEqualTo(Status.DOWN);
				assertThat((String) health.getDetails().get("error")).startsWith("Redis did not answer within 2000ms")
					.contains("nor a PING on a separate connection to " + this.redis.host() + ":" + this.redis.port())
					.contains(loop)
					.contains("Redis is at fault");
			}
			finally {
				heal.run();
			}
			assertThat(block).succeedsWithin(Duration.ofSeconds(15));
			LoopPlacement.join(workers);
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(100))
				.untilAsserted(() -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));
		});
	}

	private static List<Health> pollUntil(LettuceHealthIndicator indicator, int callers, CompletableFuture<?> until)
			throws InterruptedException {
		List<Health> answers = new CopyOnWriteArrayList<>();
		AtomicBoolean stop = new AtomicBoolean();
		until.whenComplete((result, ex) -> stop.set(true));
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < callers; i++) {
			Thread caller = new Thread(() -> {
				while (!stop.get()) {
					answers.add(indicator.health());
				}
			}, "health-" + i);
			caller.start();
			threads.add(caller);
		}
		LoopPlacement.join(threads);
		return answers;
	}

	@SuppressWarnings("unchecked")
	private static List<String> blockedThreads(Health health) {
		Object loops = health.getDetails().get("blockedEventLoops");
		if (!(loops instanceof List<?> list)) {
			return List.of();
		}
		return list.stream().map((loop) -> (String) ((Map<String, Object>) loop).get("thread")).toList();
	}

	// A reactive GET whose operator sleeps on the event loop that read its reply.
	private static CompletableFuture<String> block(ApplicationContext context, Duration duration) {
		return reactive(context).opsForValue().get("slow").map((value) -> {
			sleep(duration);
			return value;
		}).toFuture();
	}

	// Lettuce hands each new channel the next event loop in turn: the reactive
	// connection is reopened until it shares the imperative connection's loop.
	private String placeReactiveConnectionOnTheSameLoop(ApplicationContext context) throws Exception {
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		template.opsForValue().set("slow", "v");
		return LoopPlacement.placeReactiveConnection(this.redis.node(), template, reactive(context), "slow", true);
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

	/**
	 * A fault that returns how to heal it.
	 */
	@FunctionalInterface
	private interface Fault {

		Runnable inject() throws Exception;

	}

	private record Answer(Duration at, Health health) {

		@Override
		public String toString() {
			return this.at.toMillis() + "ms " + this.health.getStatus() + " " + this.health.getDetails();
		}

	}

}
