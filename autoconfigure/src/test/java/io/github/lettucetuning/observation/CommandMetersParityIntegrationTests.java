package io.github.lettucetuning.observation;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.endpoint.LettuceTuningEndpointAutoConfiguration;
import io.github.lettucetuning.autoconfigure.metrics.LettuceTuningMetricsAutoConfiguration;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.DataType;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * The same workload against a real {@code redis-server} twice, once with the starter's
 * fast path recording the {@code lettuce} timer and once with Spring Boot's
 * {@code lettuce} observation, each scraped as {@code /actuator/prometheus} serves it:
 * the same series (names, tag keys and values), the same counts, and sums that agree
 * where the workload fixes the durations (commands that wait out a timeout, a stall or a
 * fail-fast grace), and the same {@code lettuce.active} long-task timer, read while
 * commands wait and once they are done.
 */
@RedisStandaloneTest
@Timeout(240)
class CommandMetersParityIntegrationTests {

	private static final String IN_FLIGHT_GETS = "in-flight GETs";

	private final RedisStandalone redis;

	CommandMetersParityIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	// The workload's 500 ms command timeout also bounds each connection's handshake: the
	// first one in a cold JVM on a busy machine can take longer. One context with a
	// roomy timeout loads and compiles the client first; its meters are not compared.
	@BeforeEach
	void warmUp() {
		contextRunner().withPropertyValues("spring.data.redis.timeout=10s")
			.run((context) -> assertThat(context.getBean(StringRedisTemplate.class).opsForValue().get("warm-up"))
				.isNull());
	}

	@Test
	void fastPathExportsTheSeriesOfBootsObservation() {
		Map<String, Double> fast = run(contextRunner(), CommandObservationPath.Path.FAST_PATH);
		Map<String, Double> boot = run(
				contextRunner().withPropertyValues("lettuce.tuning.metrics.fast-path.enabled=false"),
				CommandObservationPath.Path.BOOT_OBSERVATION);
		assertThat(count(fast, "STRLEN", "CancellationException")).isEqualTo(3);
		assertThat(count(boot, "STRLEN", "CancellationException")).isEqualTo(3);
		assertThat(count(fast, "STRLEN", "none")).isZero();
		assertThat(LettuceSeries.seriesOf(fast, "lettuce_seconds_count"))
			.isEqualTo(LettuceSeries.seriesOf(boot, "lettuce_seconds_count"));
		assertThat(LettuceSeries.seriesOf(fast, "lettuce_active_seconds_count"))
			.isEqualTo(LettuceSeries.seriesOf(boot, "lettuce_active_seconds_count"))
			.isNotEmpty();
		assertThat(fast.keySet()).isEqualTo(boot.keySet());
		// Nothing is in flight once the workload is over; three GETs were while the
		// server slept
		for (String series : fast.keySet()) {
			if (series.startsWith("lettuce_active_seconds")) {
				assertThat(fast.get(series)).as(series).isZero();
				assertThat(boot.get(series)).as(series).isZero();
			}
		}
		assertThat(fast.get(IN_FLIGHT_GETS)).isEqualTo(3).isEqualTo(boot.get(IN_FLIGHT_GETS));
		for (String series : LettuceSeries.seriesOf(fast, "lettuce_seconds_count")) {
			if (!isHandshake(series)) {
				assertThat(fast.get(series)).as(series).isEqualTo(boot.get(series));
			}
		}
		// How many reconnects follow the server's restart depends on when Lettuce's
		// attempts meet it, whichever path records them. Every handshake is one HELLO
		// and two CLIENT SETINFO, plus CLIENT MAINT_NOTIFICATIONS on those of connections
		// opened before this Redis 7.0 refused it (the first one did), on both paths
		for (Map<String, Double> samples : List.of(fast, boot)) {
			double hellos = count(samples, "HELLO", "none");
			assertThat(hellos).isGreaterThanOrEqualTo(4);
			assertThat(count(samples, "CLIENT", "none")).isGreaterThan(2 * hellos).isLessThanOrEqualTo(3 * hellos);
		}
		// The command timeout fixes how long TYPE takes; EXISTS lasts until the test
		// kills the server, which it does as soon as it sees the commands wait; the
		// subscriber's timeout fixes when STRLEN is cancelled, which the fast path sees
		// at its next check, up to 50 ms later
		for (String series : LettuceSeries.seriesOf(fast, "lettuce_seconds_sum")) {
			double expected = boot.get(series);
			if (series.contains("db_operation=\"TYPE\"")) {
				assertThat(fast.get(series)).as(series).isCloseTo(expected, within(expected * 0.05));
			}
			if (series.contains("db_operation=\"STRLEN\"")) {
				assertThat(fast.get(series)).as(series).isCloseTo(expected, within(3 * 0.06));
			}
			if (series.contains("db_operation=\"EXISTS\"")) {
				assertThat(fast.get(series)).as(series).isCloseTo(expected, within(expected * 0.25));
			}
		}
		assertThat(fast.keySet()).anyMatch((series) -> series.contains("db_operation=\"TYPE\""))
			.anyMatch((series) -> series.contains("db_operation=\"EXISTS\""))
			.anyMatch((series) -> series.contains("db_operation=\"INCR\"") && series.contains("error=\"none\""))
			.allMatch((series) -> !series.startsWith("lettuce_seconds") || series.contains("region=\"parity\""));
	}

	private ApplicationContextRunner contextRunner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, PrometheusMetricsExportAutoConfiguration.class,
					LettuceObservationAutoConfiguration.class, LettuceTuningAutoConfiguration.class,
					LettuceTuningMetricsAutoConfiguration.class, LettuceTuningEndpointAutoConfiguration.class,
					DataRedisAutoConfiguration.class, DataRedisReactiveAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=500ms",
					"lettuce.tuning.resilience.stall-detection.enabled=false",
					"lettuce.tuning.resilience.fail-fast.grace=300ms",
					"management.observations.key-values.region=parity",
					"management.endpoints.web.exposure.include=prometheus,lettuce");
	}

	private Map<String, Double> run(ApplicationContextRunner runner, CommandObservationPath.Path expectedPath) {
		List<Map<String, Double>> scraped = new ArrayList<>();
		this.redis.node().command("FLUSHALL");
		Map<String, Double> inFlight = new TreeMap<>();
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(CommandObservationPath.class).path()).isEqualTo(expectedPath);
			assertThat(context.getBean(LettuceEndpoint.class).lettuce().configuration().commandMeters())
				.satisfies((meters) -> assertThat(meters.path())
					.isEqualTo(expectedPath.name().toLowerCase(Locale.ROOT).replace('_', '-')));
			assertThat(context.getBean(ClientResources.class).tracing().isEnabled())
				.isEqualTo(expectedPath != CommandObservationPath.Path.FAST_PATH);
			exercise(context, inFlight);
			scraped.add(settledScrape(context));
		});
		scraped.get(0).putAll(inFlight);
		return scraped.get(0);
	}

	private void exercise(AssertableApplicationContext context, Map<String, Double> inFlight) throws Exception {
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		ReactiveStringRedisTemplate reactive = context.getBean(ReactiveStringRedisTemplate.class);
		for (int i = 0; i < 100; i++) {
			template.opsForValue().set("key:" + i, "value:" + i);
		}
		for (int i = 0; i < 150; i++) {
			assertThat(template.opsForValue().get("key:" + (i % 100))).isEqualTo("value:" + (i % 100));
		}
		template.opsForValue().set("text", "not a number");
		for (int i = 0; i < 3; i++) {
			assertThatException().isThrownBy(() -> template.opsForValue().increment("text"));
		}
		List<Object> pipelined = template.executePipelined((RedisCallback<Object>) (connection) -> {
			for (int i = 0; i < 40; i++) {
				connection.stringCommands().set(("piped:" + i).getBytes(StandardCharsets.UTF_8), new byte[] { 1 });
			}
			return null;
		});
		assertThat(pipelined).hasSize(40);
		for (int i = 0; i < 2; i++) {
			List<Object> results = template.execute(new SessionCallback<List<Object>>() {

				@Override
				@SuppressWarnings({ "unchecked", "rawtypes" })
				public List<Object> execute(RedisOperations operations) {
					operations.multi();
					operations.opsForValue().set("tx:a", "1");
					operations.opsForValue().set("tx:b", "2");
					return operations.exec();
				}

			});
			assertThat(results).hasSize(2);
		}
		for (int i = 0; i < 50; i++) {
			assertThat(reactive.opsForValue().get("key:" + i).block(Duration.ofSeconds(5))).isEqualTo("value:" + i);
		}
		timeOut(reactive);
		inFlight.put(IN_FLIGHT_GETS, inFlight(context, reactive));
		cancel(reactive);
		failFast(template, context.getBean(OutageGuard.class));
		// Commands refused while the connection is down are never written: neither path
		// counts them
		await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> template.opsForValue().setIfAbsent("recovered", "yes") != null);
	}

	// Two TYPE commands wait out their 500 ms command timeout while the server sleeps.
	// Reactive, so that Lettuce's expiry fails them: a synchronous call's own wait of
	// the same length may cancel the command first, either way.
	private void timeOut(ReactiveStringRedisTemplate reactive) throws Exception {
		CompletableFuture<Void> sleep = Faults.debugSleep(this.redis.node(), Duration.ofMillis(1200));
		List<CompletableFuture<DataType>> types = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			types.add(reactive.type("key:1").toFuture());
		}
		for (CompletableFuture<DataType> type : types) {
			assertThatException().isThrownBy(type::join).withMessageContaining("timed out");
		}
		sleep.get();
	}

	// Three reactive GETs wait while the server sleeps, until their 500 ms command
	// timeout: lettuce.active counts them meanwhile.
	private double inFlight(AssertableApplicationContext context, ReactiveStringRedisTemplate reactive)
			throws Exception {
		CompletableFuture<Void> sleep = Faults.debugSleep(this.redis.node(), Duration.ofMillis(1000));
		List<CompletableFuture<String>> gets = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			gets.add(reactive.opsForValue().get("key:2").toFuture());
		}
		double[] seen = new double[1];
		await().atMost(Duration.ofMillis(450)).pollInterval(Duration.ofMillis(10)).until(() -> {
			Map<String, Double> samples = LettuceSeries.scrape(context);
			seen[0] = samples.entrySet()
				.stream()
				.filter((sample) -> sample.getKey().startsWith("lettuce_active_seconds_count{")
						&& sample.getKey().contains("db_operation=\"GET\""))
				.mapToDouble(Map.Entry::getValue)
				.sum();
			return seen[0] >= 3;
		});
		for (CompletableFuture<String> get : gets) {
			assertThatException().isThrownBy(get::join).withMessageContaining("timed out");
		}
		sleep.get();
		return seen[0];
	}

	// Three reactive STRLEN commands are cancelled by their subscribers after 300 ms.
	private void cancel(ReactiveStringRedisTemplate reactive) throws Exception {
		CompletableFuture<Void> sleep = Faults.debugSleep(this.redis.node(), Duration.ofMillis(1000));
		List<CompletableFuture<Long>> sizes = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			sizes.add(reactive.opsForValue().size("key:1").timeout(Duration.ofMillis(300)).toFuture());
		}
		for (CompletableFuture<Long> size : sizes) {
			assertThatException().isThrownBy(size::join);
		}
		sleep.get();
	}

	// Three EXISTS commands are written to a frozen server, which is then killed: they
	// fail with the connection. Once the grace has run out, two more fail fast without
	// being written, which neither path counts. The server comes back on the same port.
	private void failFast(StringRedisTemplate template, OutageGuard guard) {
		RedisNode node = this.redis.node();
		Faults.pause(node);
		List<CompletableFuture<Boolean>> exists = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				exists.add(CompletableFuture.supplyAsync(() -> template.hasKey("key:3")));
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> guard.waitingCommands() >= 3);
			Faults.kill(node);
			for (CompletableFuture<Boolean> exist : exists) {
				assertThatException().isThrownBy(exist::join);
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> !guard.outages().isEmpty());
			for (int i = 0; i < 2; i++) {
				assertThatException().isThrownBy(() -> template.hasKey("key:3")).withMessageContaining("DENIED");
			}
		}
		finally {
			Faults.recover(node);
		}
	}

	// The fast path records the commands of a read batch when the batch ends, a moment
	// after their callers saw them complete: scrape until two scrapes 50 ms apart count
	// the same, for at most 2 s.
	private static Map<String, Double> settledScrape(AssertableApplicationContext context) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
		Map<String, Double> scraped = LettuceSeries.scrape(context);
		Map<String, Double> previous;
		do {
			Thread.sleep(50);
			previous = scraped;
			scraped = LettuceSeries.scrape(context);
		}
		while ((!sameCounts(previous, scraped) || anyActive(scraped)) && System.nanoTime() < deadline);
		return scraped;
	}

	// A reconnect's handshake may still be on its way once the workload is over: settled
	// means it is done too.
	private static boolean anyActive(Map<String, Double> scraped) {
		return scraped.entrySet()
			.stream()
			.anyMatch((entry) -> entry.getKey().startsWith("lettuce_active_seconds") && entry.getValue() != 0);
	}

	private static boolean sameCounts(Map<String, Double> previous, Map<String, Double> scraped) {
		return LettuceSeries.seriesOf(scraped, "lettuce_seconds_count")
			.stream()
			.allMatch((series) -> scraped.get(series).equals(previous.get(series)));
	}

	private static boolean isHandshake(String series) {
		return series.contains("db_operation=\"HELLO\"") || series.contains("db_operation=\"CLIENT\"");
	}

	private static double count(Map<String, Double> samples, String operation, String error) {
		return LettuceSeries.count(samples, operation, "error=\"" + error + "\"");
	}

}
