package io.github.lettucetuning.resilience;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.event.connection.ReconnectAttemptEvent;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The outage guard's promises one by one, against a real server: what fails is never sent
 * later, silence that is no stall is left alone, a kill within the grace stays invisible,
 * reconnects are spread out, and the request queue is bounded.
 */
@RedisStandaloneTest
@Timeout(120)
class OutageGuardIntegrationTests {

	private final RedisStandalone redis;

	private ApplicationContextRunner contextRunner;

	OutageGuardIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.redis.node().command("FLUSHALL");
		this.contextRunner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.application.name=guard-it");
	}

	@AfterEach
	void restore() {
		Faults.recover(this.redis.node());
	}

	@Test
	void aWriteThatFailedDuringAnOutageIsNeverAppliedWhenRedisReturns() {
		this.contextRunner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("before", "kept");
			// Redis reloads this snapshot when it restarts: what the client sent before
			// the outage survives it
			this.redis.node().command("SAVE");
			Faults.kill(this.redis.node());
			CompletableFuture<Void> queued = CompletableFuture
				.runAsync(() -> template.opsForValue().set("queued", "x"));
			Thread.sleep(1500);
			long start = System.nanoTime();
			assertThatExceptionOfType(RedisConnectionFailureException.class)
				.isThrownBy(() -> template.opsForValue().set("failed", "x"))
				.withMessageContaining("Redis at " + this.redis.host() + ":" + this.redis.port())
				.withMessageContaining("unreachable for");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(500));
			assertThat(queued).failsWithin(Duration.ofSeconds(1))
				.withThrowableThat()
				.havingRootCause()
				.isInstanceOf(RedisUnreachableException.class);
			this.redis.node().restart();
			awaitSuccess(template);
			assertThat(template.opsForValue().get("before")).isEqualTo("kept");
			assertThat(template.hasKey("queued")).isFalse();
			assertThat(template.hasKey("failed")).isFalse();
		});
	}

	@Test
	void aCallerThatSeesItsCommandFailForAnOutageFindsTheOutageListed() {
		this.contextRunner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			OutageGuard guard = context.getBean(OutageGuard.class);
			template.opsForValue().set("warm", "up");
			Faults.kill(this.redis.node());
			// Within the grace: the command waits in Lettuce's queue until the grace ends
			Thread.sleep(200);
			AtomicReference<List<OutageGuard.Outage>> listedWhenFailed = new AtomicReference<>();
			CompletableFuture<String> observed = setNotingOutages(template, "queued", guard, listedWhenFailed);
			assertThat(observed).failsWithin(Duration.ofSeconds(3))
				.withThrowableThat()
				.havingRootCause()
				.isInstanceOf(RedisUnreachableException.class);
			assertThat(listedWhenFailed.get()).singleElement()
				.satisfies((outage) -> assertThat(outage.server()).endsWith(":" + this.redis.port()));
		});
	}

	// A SET on the shared connection that notes the guard's outages as it completes. Both
	// callers keep it waiting, so the note is taken where Lettuce completes it: on the
	// event loop, as it fails the command, before any caller waiting for it wakes.
	@SuppressWarnings("unchecked")
	private static CompletableFuture<String> setNotingOutages(StringRedisTemplate template, String key,
			OutageGuard guard, AtomicReference<List<OutageGuard.Outage>> outages) {
		RedisFuture<String> future = template.execute((RedisCallback<RedisFuture<String>>) (
				connection) -> ((RedisClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection())
					.set(key.getBytes(), "x".getBytes()));
		return future.toCompletableFuture().whenComplete((result, failure) -> outages.set(guard.outages()));
	}

	@Test
	void aFrozenServerFailsWaitingCommandsAfterTheStallTimeoutAndNewOnesAtOnce() {
		this.contextRunner.withPropertyValues("lettuce.tuning.resilience.stall-detection.timeout=1s").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			OutageGuard guard = context.getBean(OutageGuard.class);
			template.opsForValue().set("warm", "up");
			Faults.pause(this.redis.node());
			long start = System.nanoTime();
			AtomicReference<List<OutageGuard.Outage>> listedWhenFailed = new AtomicReference<>();
			CompletableFuture<String> written = setNotingOutages(template, "written", guard, listedWhenFailed);
			assertThat(written).failsWithin(Duration.ofSeconds(3))
				.withThrowableThat()
				.havingRootCause()
				.isInstanceOf(RedisStalledException.class)
				.withMessageContaining("read nothing for 1.0 s");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(900),
					Duration.ofMillis(1500));
			assertThat(listedWhenFailed.get()).as("outages when the stalled command failed").hasSize(1);
			long next = System.nanoTime();
			assertThatExceptionOfType(RedisConnectionFailureException.class)
				.isThrownBy(() -> template.opsForValue().set("never-sent", "x"))
				.withRootCauseInstanceOf(RedisUnreachableException.class);
			assertThat(Duration.ofNanos(System.nanoTime() - next)).isLessThan(Duration.ofMillis(500));
			assertThat(guard.outages()).singleElement()
				.satisfies((outage) -> assertThat(outage.server()).endsWith(":" + this.redis.port()));
			Faults.resume(this.redis.node());
			awaitSuccess(template);
			assertThat(guard.outages()).isEmpty();
			// Written before the stall: the server ran it when it woke, as the docs warn
			assertThat(template.hasKey("written")).isTrue();
			assertThat(template.hasKey("never-sent")).isFalse();
		});
	}

	@Test
	void aLongCommandOfTheServerIsAStallButABlockingPopIsNot() {
		this.contextRunner.withPropertyValues("lettuce.tuning.resilience.stall-detection.timeout=1s").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			long start = System.nanoTime();
			assertThat(template.opsForList().leftPop("empty", Duration.ofSeconds(3))).isNull();
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(2900));
			CompletableFuture<Void> sleep = Faults.debugSleep(this.redis.node(), Duration.ofSeconds(3));
			Thread.sleep(100);
			assertThatExceptionOfType(RedisConnectionFailureException.class)
				.isThrownBy(() -> template.opsForValue().get("during-sleep"))
				.withRootCauseInstanceOf(RedisStalledException.class);
			sleep.get(10, TimeUnit.SECONDS);
			awaitSuccess(template);
		});
	}

	@Test
	void aClientKillWithinTheGraceIsInvisibleToCallers() {
		this.contextRunner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			List<Throwable> failures = new CopyOnWriteArrayList<>();
			AtomicLong done = new AtomicLong();
			List<Thread> threads = new ArrayList<>();
			long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
			for (int t = 0; t < 8; t++) {
				int thread = t;
				Thread worker = new Thread(() -> {
					while (System.nanoTime() < end) {
						try {
							template.opsForValue().increment("kill:" + thread);
							done.incrementAndGet();
						}
						catch (DataAccessException ex) {
							failures.add(ex);
						}
					}
				});
				worker.start();
				threads.add(worker);
			}
			Thread.sleep(1000);
			assertThat(Faults.killClients(this.redis.node(), "guard-it")).isPositive();
			for (Thread thread : threads) {
				thread.join();
			}
			// The grace fails nothing. Lettuce itself fails the oldest waiting command
			// when the server's close arrives as a reset (unread data in its buffer): at
			// most that one, with the reset as its cause
			assertThat(failures).hasSizeLessThanOrEqualTo(1)
				.allSatisfy((failure) -> assertThat(NestedExceptionUtils.getMostSpecificCause(failure))
					.isInstanceOf(IOException.class)
					.hasMessageContaining("reset"));
			assertThat(done.get()).isPositive();
		});
	}

	@Test
	void twentyClientsThatLostTheSameServerReconnectAtDifferentMoments() throws Exception {
		Map<Integer, List<Duration>> jittered = reconnectDelays("full");
		Map<Integer, List<Duration>> lockStep = reconnectDelays("none");
		for (int attempt = 3; attempt <= 6; attempt++) {
			assertThat(lockStep.get(attempt)).as("attempt %d without jitter", attempt)
				.hasSize(20)
				.containsOnly(lockStep.get(attempt).get(0));
			List<Duration> delays = jittered.get(attempt);
			assertThat(delays).as("attempt %d with jitter", attempt).hasSize(20);
			assertThat(delays.stream().distinct().count()).as("distinct delays of attempt %d", attempt)
				.isGreaterThan(5);
			Duration shortest = delays.stream().min(Duration::compareTo).get();
			Duration longest = delays.stream().max(Duration::compareTo).get();
			assertThat(longest.minus(shortest)).as("spread of attempt %d: %s", attempt, delays)
				.isGreaterThanOrEqualTo(longest.dividedBy(5));
		}
	}

	// The delays the 20 connections' watchdogs announced before each of their first six
	// reconnect attempts, by attempt: the schedule each client follows.
	private Map<Integer, List<Duration>> reconnectDelays(String jitter) {
		Map<Integer, List<Duration>> delays = new ConcurrentHashMap<>();
		this.contextRunner.withPropertyValues("lettuce.tuning.resilience.reconnect.jitter=" + jitter).run((context) -> {
			ClientResources resources = context.getBean(ClientResources.class);
			RedisClient client = RedisClient.create(resources, RedisURI.create(this.redis.uri()));
			Disposable subscription = resources.eventBus()
				.get()
				.ofType(ReconnectAttemptEvent.class)
				.subscribe((event) -> delays.computeIfAbsent(event.getAttempt(), (k) -> new CopyOnWriteArrayList<>())
					.add(event.getDelay()));
			List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
			try {
				for (int i = 0; i < 20; i++) {
					connections.add(client.connect());
				}
				Faults.kill(this.redis.node());
				await().atMost(Duration.ofSeconds(20))
					.pollInterval(Duration.ofMillis(50))
					.untilAsserted(
							() -> assertThat(delays.getOrDefault(6, List.of())).as("delays announced before attempt 6")
								.hasSize(20));
			}
			finally {
				subscription.dispose();
				connections.forEach(StatefulRedisConnection::close);
				client.shutdown();
				this.redis.node().restart();
			}
		});
		return delays;
	}

	@Test
	void theRequestQueueIsBounded() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.resilience.request-queue-size=10",
					"lettuce.tuning.resilience.stall-detection.enabled=false")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("warm", "up");
				Faults.pause(this.redis.node());
				List<CompletableFuture<Void>> calls = new ArrayList<>();
				for (int i = 0; i < 20; i++) {
					int n = i;
					calls.add(CompletableFuture.runAsync(() -> template.opsForValue().set("queue:" + n, "x")));
				}
				OutageGuard guard = context.getBean(OutageGuard.class);
				await().atMost(Duration.ofSeconds(5))
					.pollInterval(Duration.ofMillis(20))
					.until(() -> calls.stream().filter(CompletableFuture::isCompletedExceptionally).count() >= 10);
				assertThat(guard.waitingCommands()).isEqualTo(10);
				assertThat(calls.stream().filter(CompletableFuture::isCompletedExceptionally)).hasSize(10)
					.allSatisfy((call) -> assertThat(call).failsWithin(Duration.ZERO)
						.withThrowableThat()
						.havingRootCause()
						.withMessageContaining("size exceeded: 10"));
				Faults.resume(this.redis.node());
				CompletableFuture
					.allOf(calls.stream()
						.map((call) -> call.exceptionally((ex) -> null))
						.toArray(CompletableFuture[]::new))
					.get(10, TimeUnit.SECONDS);
				assertThat(guard.waitingCommands()).isZero();
			});
	}

	private static void awaitSuccess(StringRedisTemplate template) {
		await("Redis answered again within 10 s").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptionsInstanceOf(DataAccessException.class)
			.untilAsserted(() -> template.opsForValue().get("probe"));
	}

}
