package io.github.lettucetuning.autoconfigure.metrics;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.nearcache.LettuceTuningNearCacheAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every meter the starter registers, exported through Micrometer's Prometheus registry as
 * Spring Boot configures it, against a real standalone server: no exported name repeats a
 * word (Prometheus appends the base unit, so a name and its unit must not both say what
 * is counted), and the set of names is the one written here, so a new or renamed meter
 * has to be added to it on purpose.
 * <p>
 * Every feature that registers meters is on: shared mode (in-flight gauges), the
 * dedicated pool, lettuce-tuning's timing wheel, the outage guard with its event-loop
 * watchdog, the client event counters, the {@code lettuce.command.*} timers and the near
 * cache, bounded by bytes. The cluster counters (topology refreshes and triggers,
 * redirections) are registered in every topology, so a cluster adds tag values but no
 * name; the standalone context exports every name.
 */
@RedisStandaloneTest
@Timeout(120)
class PrometheusMeterNamesIntegrationTests {

	private static final Set<String> EXPECTED_NAMES = Set.of(
			// Lettuce's command latency timers with Spring Boot 3's names
			"lettuce_command_completion_seconds_count", "lettuce_command_completion_seconds_sum",
			"lettuce_command_completion_seconds_max", "lettuce_command_firstresponse_seconds_count",
			"lettuce_command_firstresponse_seconds_sum", "lettuce_command_firstresponse_seconds_max",
			// ConnectionMetrics
			"lettuce_tuning_connections", "lettuce_tuning_connection_in_flight",
			"lettuce_tuning_subscriptions_lost_total", "lettuce_tuning_subscriptions_unrestored",
			// DedicatedPoolMetrics
			"lettuce_tuning_pool_active_connections", "lettuce_tuning_pool_idle_connections",
			"lettuce_tuning_pool_waiting_threads", "lettuce_tuning_pool_max_connections",
			"lettuce_tuning_pool_created_connections_total", "lettuce_tuning_pool_destroyed_connections_total",
			"lettuce_tuning_pool_borrowed_connections_total", "lettuce_tuning_pool_borrow_wait_max_seconds",
			// TimerMetrics
			"lettuce_tuning_timer_pending_timeouts", "lettuce_tuning_timer_expired_timeouts_total",
			// ClientEventMetrics
			"lettuce_tuning_reconnects_total", "lettuce_tuning_reconnect_failures_total",
			"lettuce_tuning_topology_refreshes_total", "lettuce_tuning_topology_refresh_triggers_total",
			"lettuce_tuning_redirections_total", "lettuce_tuning_command_timeouts_total",
			"lettuce_tuning_reauthentications_total",
			// OutageMetrics
			"lettuce_tuning_commands_waiting", "lettuce_tuning_connections_unreachable",
			"lettuce_tuning_event_loop_blocked_total", "lettuce_tuning_event_loops_blocked",
			"lettuce_tuning_process_pauses_total", "lettuce_tuning_maintenance_notifications_total",
			"lettuce_tuning_maintenance_connections", "lettuce_tuning_maintenance_relaxed_commands_total",
			"lettuce_tuning_connections_moved_total",
			// NearCacheMetrics
			"lettuce_tuning_near_cache_gets_total", "lettuce_tuning_near_cache_entries",
			"lettuce_tuning_near_cache_evictions_total", "lettuce_tuning_near_cache_invalidated_keys_total",
			"lettuce_tuning_near_cache_flushes_total", "lettuce_tuning_near_cache_tracking",
			"lettuce_tuning_near_cache_interruptions_total", "lettuce_tuning_near_cache_weight_bytes");

	private final ApplicationContextRunner contextRunner;

	PrometheusMeterNamesIntegrationTests(RedisStandalone redis) {
		this.contextRunner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class,
					DataRedisAutoConfiguration.class, LettuceTuningMetricsAutoConfiguration.class,
					MetricsAutoConfiguration.class, PrometheusMetricsExportAutoConfiguration.class,
					CompositeMeterRegistryAutoConfiguration.class, CacheAutoConfiguration.class,
					LettuceTuningNearCacheAutoConfiguration.class))
			.withUserConfiguration(CachingConfiguration.class)
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"lettuce.tuning.connection.mode=shared", "lettuce.tuning.timer.type=wheel",
					"lettuce.tuning.resilience.fail-fast.enabled=true",
					"lettuce.tuning.resilience.blocked-loop-detection.enabled=true",
					"lettuce.tuning.near-cache.caches=names", "lettuce.tuning.near-cache.maximum-bytes=1MB");
	}

	@Test
	void everyExportedNameIsExpectedAndRepeatsNoWord() {
		this.contextRunner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("names", "value");
			assertThat(template.opsForValue().get("names")).isEqualTo("value");
			template.execute(new TransactionOfOneSet());
			Set<String> names = exportedNames(context.getBean(PrometheusMeterRegistry.class).scrape());
			assertThat(names)
				.allSatisfy((name) -> assertThat(repeatedTokens(name)).as("tokens repeated in %s", name).isEmpty());
			assertThat(names).containsExactlyInAnyOrderElementsOf(EXPECTED_NAMES);
		});
	}

	@Test
	void repeatedWordsAreFoundInTheNamesTheMetersHadBefore() {
		assertThat(repeatedTokens("lettuce_tuning_commands_waiting_commands")).containsExactly("command");
		assertThat(repeatedTokens("lettuce_tuning_connections_unreachable_connections")).containsExactly("connection");
		assertThat(repeatedTokens("lettuce_tuning_command_timeouts_commands_total")).containsExactly("command");
		assertThat(repeatedTokens("lettuce_tuning_commands_waiting")).isEmpty();
	}

	/**
	 * The names of the series in a scrape in Prometheus's text format that belong to
	 * Lettuce.
	 * @param scrape the scrape
	 * @return the series names
	 */
	private static Set<String> exportedNames(String scrape) {
		Set<String> names = new TreeSet<>();
		for (String line : scrape.split("\n")) {
			if (line.isBlank() || line.startsWith("#")) {
				continue;
			}
			int end = line.indexOf('{');
			String name = line.substring(0, (end >= 0) ? end : line.indexOf(' '));
			if (name.startsWith("lettuce_")) {
				names.add(name);
			}
		}
		return names;
	}

	/**
	 * The words that occur more than once in a series name, singular and plural counting
	 * as the same word ({@code command} in {@code command_timeouts_commands}).
	 * @param name the series name
	 * @return the repeated words, singular
	 */
	private static List<String> repeatedTokens(String name) {
		Set<String> seen = new LinkedHashSet<>();
		List<String> repeated = new ArrayList<>();
		for (String token : name.split("_")) {
			String word = token.toLowerCase(Locale.ROOT);
			String singular = (word.length() > 3 && word.endsWith("s")) ? word.substring(0, word.length() - 1) : word;
			if (!seen.add(singular)) {
				repeated.add(singular);
			}
		}
		return repeated;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	static class CachingConfiguration {

	}

	private static final class TransactionOfOneSet implements SessionCallback<List<Object>> {

		@Override
		@SuppressWarnings({ "unchecked", "rawtypes" })
		public List<Object> execute(RedisOperations operations) {
			operations.multi();
			operations.opsForValue().set("names:tx", "value");
			return operations.exec();
		}

	}

}
