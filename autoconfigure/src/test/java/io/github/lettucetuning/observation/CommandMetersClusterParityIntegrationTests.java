package io.github.lettucetuning.observation;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.metrics.LettuceTuningMetricsAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same workload on a 6-node cluster twice, once with the starter's fast path and once
 * with Spring Boot's {@code lettuce} observation, with slots moved between its two
 * halves: the client does not refresh its topology (adaptive triggers off, no periodic
 * refresh), so every command on a moved slot is answered {@code MOVED} by its former
 * master and sent again to the new one, which both paths count as two writes, one per
 * node. The {@code lettuce*} series, tags and counts are the same.
 */
@RedisClusterTest
@Timeout(240)
class CommandMetersClusterParityIntegrationTests {

	private static final int SLOTS = 40;

	private static final int KEYS = 20;

	private final RedisClusterTopology cluster;

	CommandMetersClusterParityIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	void fastPathExportsTheSeriesOfBootsObservationAcrossRedirections() {
		RedisNode from = this.cluster.masterForSlot(0);
		RedisNode to = this.cluster.masterForSlot(16383);
		Map<String, Double> fast = run(contextRunner(), from, to);
		Map<String, Double> boot = run(
				contextRunner().withPropertyValues("lettuce.tuning.metrics.fast-path.enabled=false"), from, to);
		assertThat(fast.keySet()).isEqualTo(boot.keySet());
		assertThat(fast.keySet()).anyMatch((series) -> series.startsWith("lettuce_active_seconds_count{"));
		for (String series : fast.keySet()) {
			if (series.startsWith("lettuce_seconds_count{")
					&& (series.contains("db_operation=\"GET\"") || series.contains("db_operation=\"SET\""))) {
				assertThat(fast.get(series)).as(series).isEqualTo(boot.get(series));
			}
			if (series.startsWith("lettuce_active_seconds")) {
				assertThat(fast.get(series)).as(series).isZero();
			}
		}
		// Every GET goes to the former master (both halves: 2 x 2 x KEYS per kind), and
		// those on moved slots in the second half again to the new one
		String fromPort = "net_sock_peer_port=\"" + from.port() + "\"";
		String toPort = "net_sock_peer_port=\"" + to.port() + "\"";
		assertThat(LettuceSeries.count(fast, "GET", fromPort)).isEqualTo(8 * KEYS);
		assertThat(LettuceSeries.count(fast, "GET", toPort)).isEqualTo(2 * KEYS);
		assertThat(LettuceSeries.count(boot, "GET", fromPort)).isEqualTo(8 * KEYS);
		// A GET answered behind a MOVED one is recorded at its own reply, not at the
		// handler's check (50 ms) after the redirected one completes
		String fromGetMax = fast.keySet()
			.stream()
			.filter((series) -> series.startsWith("lettuce_seconds_max{") && series.contains(fromPort)
					&& series.contains("db_operation=\"GET\""))
			.findFirst()
			.orElseThrow();
		System.out.println("GET max on the former master: fast path " + fast.get(fromGetMax) + " s, Boot "
				+ boot.get(fromGetMax) + " s");
		assertThat(fast.get(fromGetMax)).isLessThan(0.04);
	}

	private ApplicationContextRunner contextRunner() {
		String nodes = this.cluster.nodes()
			.stream()
			.map((node) -> node.host() + ":" + node.port())
			.collect(Collectors.joining(","));
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, PrometheusMetricsExportAutoConfiguration.class,
					LettuceObservationAutoConfiguration.class, LettuceTuningAutoConfiguration.class,
					LettuceTuningMetricsAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withBean(LettuceClientOptionsBuilderCustomizer.class,
					() -> (builder) -> ((ClusterClientOptions.Builder) builder).topologyRefreshOptions(
							ClusterTopologyRefreshOptions.builder().disableAllAdaptiveRefreshTriggers().build()))
			.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes, "spring.data.redis.timeout=10s",
					"lettuce.tuning.resilience.stall-detection.enabled=false",
					"management.endpoints.web.exposure.include=prometheus");
	}

	private Map<String, Double> run(ApplicationContextRunner runner, RedisNode from, RedisNode to) {
		List<String> moving = keysInSlots(0, SLOTS, "moving");
		List<String> staying = keysInSlots(SLOTS, 5000, "staying");
		List<Map<String, Double>> scraped = new ArrayList<>();
		runner.run((context) -> {
			assertThat(context).hasNotFailed();
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			for (String key : moving) {
				template.opsForValue().set(key, key);
			}
			for (String key : staying) {
				template.opsForValue().set(key, key);
			}
			readAll(context, moving, staying);
			List<Integer> moved = this.cluster.migrateSlots(from, to, SLOTS);
			assertThat(moved).isEqualTo(IntStream.range(0, SLOTS).boxed().toList());
			readAll(context, moving, staying);
			scraped.add(settledScrape(context));
		});
		// Back where they were, for the other path
		assertThat(this.cluster.migrateSlots(to, from, SLOTS)).isEqualTo(IntStream.range(0, SLOTS).boxed().toList());
		return scraped.get(0);
	}

	// One GET per key synchronously, then all of them at once on the native connection:
	// on the former master's channel the replies to the keys that stayed follow the
	// MOVED ones
	@SuppressWarnings("unchecked")
	private void readAll(AssertableApplicationContext context, List<String> moving, List<String> staying)
			throws Exception {
		StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
		for (int i = 0; i < KEYS; i++) {
			assertThat(template.opsForValue().get(moving.get(i))).isEqualTo(moving.get(i));
			assertThat(template.opsForValue().get(staying.get(i))).isEqualTo(staying.get(i));
		}
		try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class).getClusterConnection()) {
			RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) connection
				.getNativeConnection();
			List<RedisFuture<byte[]>> gets = new ArrayList<>();
			for (int i = 0; i < KEYS; i++) {
				gets.add(commands.get(moving.get(i).getBytes(StandardCharsets.UTF_8)));
				gets.add(commands.get(staying.get(i).getBytes(StandardCharsets.UTF_8)));
			}
			for (RedisFuture<byte[]> get : gets) {
				assertThat(get.get(10, TimeUnit.SECONDS)).isNotNull();
			}
		}
	}

	private static List<String> keysInSlots(int fromSlot, int toSlot, String prefix) {
		List<String> keys = new ArrayList<>();
		for (int i = 0; keys.size() < KEYS; i++) {
			String key = prefix + ":" + i;
			int slot = SlotHash.getSlot(key);
			if (slot >= fromSlot && slot < toSlot) {
				keys.add(key);
			}
		}
		return keys;
	}

	// A caller may see its command complete a moment before the callback that ends its
	// count in lettuce.active has run, and the fast path records the commands of a read
	// batch when the batch ends, a moment after their callers saw them complete: scrape
	// until nothing reads as in flight and every GET is counted (each of them once, and
	// those on moved slots once more on their new master), for at most 2 s. A command
	// that never left the count, or one never recorded, fails the comparison.
	private static Map<String, Double> settledScrape(AssertableApplicationContext context) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
		Map<String, Double> scraped = LettuceSeries.scrape(context);
		while (!settled(scraped) && System.nanoTime() < deadline) {
			Thread.sleep(20);
			scraped = LettuceSeries.scrape(context);
		}
		return scraped;
	}

	private static boolean settled(Map<String, Double> scraped) {
		return !inFlight(scraped) && LettuceSeries.count(scraped, "GET", "") == 10 * KEYS;
	}

	private static boolean inFlight(Map<String, Double> scraped) {
		return scraped.entrySet()
			.stream()
			.anyMatch((series) -> series.getKey().startsWith("lettuce_active_seconds") && series.getValue() != 0.0);
	}

}
