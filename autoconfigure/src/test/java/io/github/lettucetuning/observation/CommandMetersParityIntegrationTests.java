package io.github.lettucetuning.observation;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.endpoint.LettuceTuningEndpointAutoConfiguration;
import io.github.lettucetuning.autoconfigure.metrics.LettuceTuningMetricsAutoConfiguration;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
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
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusOutputFormat;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusScrapeEndpoint;
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
 * fail-fast grace). The only series the fast path leaves out is {@code lettuce.active}.
 */
@RedisStandaloneTest
@Timeout(240)
class CommandMetersParityIntegrationTests {

	private static final Pattern SAMPLE = Pattern.compile("^(\\w+)(\\{[^}]*\\})?\\s+(\\S+).*$");

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
		assertThat(count(fast, "STRLEN", "none")).isEqualTo(3);
		assertThat(count(boot, "STRLEN", "CancellationException")).isEqualTo(3);
		fast.keySet().removeIf((series) -> series.contains("db_operation=\"STRLEN\""));
		Map<String, Double> bootWithoutActive = new TreeMap<>(boot);
		bootWithoutActive.keySet()
			.removeIf((series) -> series.startsWith("lettuce_active_seconds")
					|| series.contains("db_operation=\"STRLEN\""));
		assertThat(boot).as("Boot's observation records lettuce.active").containsKey(activeCount(boot));
		assertThat(seriesOf(fast, "lettuce_seconds_count"))
			.isEqualTo(seriesOf(bootWithoutActive, "lettuce_seconds_count"));
		assertThat(fast.keySet()).isEqualTo(bootWithoutActive.keySet());
		for (String series : seriesOf(fast, "lettuce_seconds_count")) {
			if (!isHandshake(series)) {
				assertThat(fast.get(series)).as(series).isEqualTo(boot.get(series));
			}
		}
		// How many reconnects follow the server's restart depends on when Lettuce's
		// attempts meet it, whichever path records them; every handshake is one HELLO
		// and three CLIENT commands on both
		for (Map<String, Double> samples : List.of(fast, boot)) {
			assertThat(count(samples, "HELLO", "none")).isGreaterThanOrEqualTo(4);
			assertThat(count(samples, "CLIENT", "none")).isEqualTo(3 * count(samples, "HELLO", "none"));
		}
		// The command timeout fixes how long TYPE takes; EXISTS lasts until the test
		// kills the server, which it does as soon as it sees the commands wait
		for (String series : seriesOf(fast, "lettuce_seconds_sum")) {
			double expected = boot.get(series);
			if (series.contains("db_operation=\"TYPE\"")) {
				assertThat(fast.get(series)).as(series).isCloseTo(expected, within(expected * 0.05));
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
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(CommandObservationPath.class).path()).isEqualTo(expectedPath);
			assertThat(context.getBean(LettuceEndpoint.class).lettuce().configuration().commandMeters())
				.satisfies((meters) -> assertThat(meters.path())
					.isEqualTo(expectedPath.name().toLowerCase(Locale.ROOT).replace('_', '-')));
			assertThat(context.getBean(ClientResources.class).tracing().isEnabled())
				.isEqualTo(expectedPath != CommandObservationPath.Path.FAST_PATH);
			exercise(context);
			scraped.add(scrape(context));
		});
		return scraped.get(0);
	}

	private void exercise(AssertableApplicationContext context) throws Exception {
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
		CompletableFuture<Void> sleep = this.redis.node().debugSleep(Duration.ofMillis(1200));
		List<CompletableFuture<DataType>> types = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			types.add(reactive.type("key:1").toFuture());
		}
		for (CompletableFuture<DataType> type : types) {
			assertThatException().isThrownBy(type::join).withMessageContaining("timed out");
		}
		sleep.get();
	}

	// Three reactive STRLEN commands are cancelled by their subscribers after 300 ms.
	private void cancel(ReactiveStringRedisTemplate reactive) throws Exception {
		CompletableFuture<Void> sleep = this.redis.node().debugSleep(Duration.ofMillis(1000));
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
		node.pause();
		List<CompletableFuture<Boolean>> exists = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				exists.add(CompletableFuture.supplyAsync(() -> template.hasKey("key:3")));
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> guard.waitingCommands() >= 3);
			node.kill();
			for (CompletableFuture<Boolean> exist : exists) {
				assertThatException().isThrownBy(exist::join);
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> !guard.outages().isEmpty());
			for (int i = 0; i < 2; i++) {
				assertThatException().isThrownBy(() -> template.hasKey("key:3")).withMessageContaining("DENIED");
			}
		}
		finally {
			node.recover();
		}
	}

	private static Map<String, Double> scrape(AssertableApplicationContext context) {
		PrometheusScrapeEndpoint endpoint = context.getBean(PrometheusScrapeEndpoint.class);
		String text = new String(endpoint.scrape(PrometheusOutputFormat.CONTENT_TYPE_004, null).getBody(),
				StandardCharsets.UTF_8);
		Map<String, Double> samples = new TreeMap<>();
		for (String line : text.split("\n")) {
			Matcher matcher = SAMPLE.matcher(line);
			if (!line.startsWith("#") && matcher.matches() && matcher.group(1).startsWith("lettuce_")
					&& !matcher.group(1).startsWith("lettuce_tuning_")) {
				samples.put(matcher.group(1) + ((matcher.group(2) != null) ? matcher.group(2) : ""),
						Double.parseDouble(matcher.group(3)));
			}
		}
		return samples;
	}

	private static boolean isHandshake(String series) {
		return series.contains("db_operation=\"HELLO\"") || series.contains("db_operation=\"CLIENT\"");
	}

	private static double count(Map<String, Double> samples, String operation, String error) {
		return samples.entrySet()
			.stream()
			.filter((sample) -> sample.getKey().startsWith("lettuce_seconds_count{")
					&& sample.getKey().contains("db_operation=\"" + operation + "\"")
					&& sample.getKey().contains("error=\"" + error + "\""))
			.mapToDouble(Map.Entry::getValue)
			.sum();
	}

	private static Set<String> seriesOf(Map<String, Double> samples, String name) {
		Set<String> series = new TreeSet<>();
		for (String key : samples.keySet()) {
			if (key.startsWith(name + "{")) {
				series.add(key);
			}
		}
		return series;
	}

	private static String activeCount(Map<String, Double> samples) {
		return samples.keySet()
			.stream()
			.filter((key) -> key.startsWith("lettuce_active_seconds"))
			.findFirst()
			.orElse("lettuce_active_seconds (none)");
	}

}
