package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.endpoint.LettuceDescriptor;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What is in flight on each shared connection, against a real server: counted on every
 * path (sync, failing sync, reactive completed, failed, cancelled and timed out) and back
 * at zero once the load ends, in the {@code lettuce.tuning.connection.in-flight} gauges
 * and the {@code lettuce} endpoint, for the shared mode and every selection policy of the
 * multi mode.
 */
@RedisStandaloneTest
@Timeout(180)
class InFlightIntegrationTests {

	private static final AtomicInteger apps = new AtomicInteger();

	private final RedisStandalone redis;

	InFlightIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void flush() {
		this.redis.node().command("FLUSHALL");
	}

	private ApplicationContextRunner contextRunner(String... properties) {
		return ObservabilityIntegrationSupport.contextRunner("in-flight-it-" + apps.incrementAndGet())
			.withConfiguration(AutoConfigurations.of(DataRedisReactiveAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + this.redis.port())
			.withPropertyValues(properties);
	}

	@Test
	void sharedModeBalances() {
		contextRunner().run((context) -> assertBalancedUnderMixedLoad(context, 1));
	}

	@Test
	void multiModeBalancesInEveryPolicy() {
		for (String policy : List.of("round-robin", "thread-affinity", "least-in-flight")) {
			contextRunner("lettuce.tuning.connection.mode=multi", "lettuce.tuning.connection.multi.size=3",
					"lettuce.tuning.connection.multi.selection=" + policy)
				.run((context) -> assertBalancedUnderMixedLoad(context, 3));
		}
	}

	private void assertBalancedUnderMixedLoad(ApplicationContext context, int members) throws Exception {
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		ReactiveStringRedisTemplate reactive = context.getBean(ReactiveStringRedisTemplate.class);
		MeterRegistry registry = context.getBean(MeterRegistry.class);
		LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
		template.opsForValue().set("text", "not a number");
		AtomicInteger seenInFlight = new AtomicInteger();
		long failures = Load.run(8, 1000, (i) -> {
			switch (i % 6) {
				case 0 -> template.opsForValue().increment("text");
				case 1 -> reactive.opsForValue().get("k" + i).take(Duration.ZERO).block(Duration.ofSeconds(5));
				case 2 -> reactive.opsForValue()
					.get("k" + i)
					.timeout(Duration.ofNanos(1000))
					.onErrorResume(TimeoutException.class, (ex) -> Mono.empty())
					.block(Duration.ofSeconds(5));
				case 3 -> reactive.opsForValue()
					.increment("text")
					.onErrorResume((ex) -> Mono.empty())
					.block(Duration.ofSeconds(5));
				case 4 -> seenInFlight.accumulateAndGet(
						template.execute((RedisCallback<Integer>) (connection) -> sum(registry, "imperative")),
						Math::max);
				default -> {
					template.opsForValue().set("k" + i, "v");
					assertThat(reactive.opsForValue().get("k" + i).block(Duration.ofSeconds(5))).isEqualTo("v");
				}
			}
		});
		assertThat(failures).as("failed increments of a text").isEqualTo(8 * 1000 / 6 + 1);
		assertThat(seenInFlight.get()).as("in flight seen from inside an operation").isPositive();
		assertThat(registry.find("lettuce.tuning.connection.in-flight").gauges()).hasSize(2 * members);
		ObservabilityIntegrationSupport.await(Duration.ofSeconds(10),
				() -> "every in-flight count back at zero ("
						+ context.getEnvironment().getProperty("lettuce.tuning.connection.multi.selection", "shared")
						+ "): imperative " + Arrays.toString(factory.getSharedInFlight()) + ", reactive "
						+ Arrays.toString(factory.getReactiveInFlight()),
				() -> sum(registry, "imperative") == 0 && sum(registry, "reactive") == 0);
		assertThat(factory.getSharedInFlight()).hasSize(members).containsOnly(0);
		assertThat(factory.getReactiveInFlight()).hasSize(members).containsOnly(0);
		LettuceDescriptor descriptor = context.getBean(LettuceEndpoint.class).lettuce();
		assertThat(descriptor.state().connections().inFlight()).hasSize(members).containsOnly(0);
		assertThat(descriptor.state().connections().reactiveInFlight()).hasSize(members).containsOnly(0);
		try (RedisConnection connection = factory.getConnection()) {
			assertThat(descriptor(context).state().connections().inFlight().stream().mapToInt(Integer::intValue).sum())
				.isOne();
		}
	}

	private static LettuceDescriptor descriptor(ApplicationContext context) {
		return context.getBean(LettuceEndpoint.class).lettuce();
	}

	private static int sum(MeterRegistry registry, String api) {
		return (int) registry.find("lettuce.tuning.connection.in-flight")
			.tag("api", api)
			.gauges()
			.stream()
			.mapToDouble(Gauge::value)
			.sum();
	}

}
