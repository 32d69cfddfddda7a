package io.github.lettucetuning.observation;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The load of issue 14 with Boot's Lettuce observation on: 16 threads of synchronous
 * SET/GET, and 256 reactive GETs in flight that their subscribers cancel at once
 * ({@code take(Duration.ZERO)}) or time out ({@code timeout(1 ms)}). Without the guard, a
 * few operations per pass of 20,000 never signal their subscriber; with it, every one
 * does, and no observation is left running.
 */
@RedisStandaloneTest
@Timeout(180)
class ReactiveCancelWithObservationIntegrationTests {

	private static final int PASSES = 3;

	private static final int OPERATIONS = 20_000;

	private final RedisStandalone redis;

	ReactiveCancelWithObservationIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void everyCancelledOrTimedOutReactiveOperationSignalsItsSubscriber() {
		MeterRegistry meters = new SimpleMeterRegistry();
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LettuceObservationAutoConfiguration.class,
					LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class,
					DataRedisReactiveAutoConfiguration.class))
			.withBean(ObservationRegistry.class, () -> {
				ObservationRegistry registry = ObservationRegistry.create();
				registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
				return registry;
			})
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port())
			.run((context) -> {
				assertThat(context.getBean(ClientResources.class).tracing()).isInstanceOf(GuardedTracing.class);
				StringRedisTemplate sync = context.getBean(StringRedisTemplate.class);
				ReactiveStringRedisTemplate reactive = context.getBean(ReactiveStringRedisTemplate.class);
				AtomicBoolean running = new AtomicBoolean(true);
				Thread[] threads = new Thread[16];
				for (int t = 0; t < threads.length; t++) {
					String key = "observed:" + t;
					threads[t] = new Thread(() -> {
						while (running.get()) {
							sync.opsForValue().set(key, "v");
							sync.opsForValue().get(key);
						}
					});
					threads[t].start();
				}
				try {
					for (int pass = 0; pass < PASSES; pass++) {
						Map<Long, String> open = startOperations(reactive);
						String description = "operations never signalled in pass " + pass;
						await().atMost(Duration.ofSeconds(5))
							.pollInterval(Duration.ofMillis(20))
							.untilAsserted(() -> assertThat(open).as(description).isEmpty());
					}
				}
				finally {
					running.set(false);
					for (Thread thread : threads) {
						thread.join();
					}
				}
				Thread.sleep(500);
				assertThat(meters.find("lettuce.active").longTaskTimer()).satisfies((active) -> {
					if (active != null) {
						assertThat(active.activeTasks()).as("observations still running").isZero();
					}
				});
			});
	}

	// Returns the operations that have not signalled yet; each removes itself when it
	// does.
	private static Map<Long, String> startOperations(ReactiveStringRedisTemplate reactive) throws InterruptedException {
		Map<Long, String> open = new ConcurrentHashMap<>();
		Semaphore inFlight = new Semaphore(256);
		for (int i = 0; i < OPERATIONS; i++) {
			inFlight.acquire();
			long id = i;
			boolean take = i % 2 == 0;
			open.put(id, take ? "take(Duration.ZERO)" : "timeout(1 ms)");
			Mono<String> get = reactive.opsForValue().get("observed:" + (i % 16));
			(take ? get.take(Duration.ZERO) : get.timeout(Duration.ofMillis(1))).subscribe(new BaseSubscriber<>() {

				@Override
				protected void hookOnSubscribe(Subscription subscription) {
					requestUnbounded();
				}

				@Override
				protected void hookOnError(Throwable throwable) {
					// a timeout is an answer too
				}

				@Override
				protected void hookFinally(SignalType type) {
					if (open.remove(id) != null) {
						inFlight.release();
					}
				}

			});
		}
		return open;
	}

}
