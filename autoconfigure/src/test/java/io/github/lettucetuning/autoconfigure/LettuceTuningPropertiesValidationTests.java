package io.github.lettucetuning.autoconfigure;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the validation of {@link LettuceTuningProperties}: a bad value fails startup
 * once, when the properties are bound, with Spring Boot's failure analysis naming the
 * property, the value and the fix.
 */
class LettuceTuningPropertiesValidationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@ParameterizedTest
	@CsvSource(delimiter = '|', textBlock = """
			connection.multi.size=0                    | 0       | remove it to use the default
			connection.io-threads=-2                   | -2      | remove it to use the default
			connection.computation-threads=0           | 0       | remove it to use the default
			timer.tick=0ms                             | 0ms     | 10ms is the default
			timer.wheel-size=0                         | 0       | remove it to use the default
			timer.wheel-size=1000                      | 1000    | power of two
			timer.max-pending=-5                       | -5      | remove it to use the default
			socket.tcp-user-timeout.duration=0s        | 0ms     | remove it to use the keep-alive's idle
			dns.max-ttl=-1s                            | -1000ms | 5s is the default
			dns.max-ttl=1500ms                         | 1500ms  | a whole number of seconds
			dns.max-ttl=2d                             | 172800000ms | from 0s to 86400s
			resilience.fail-fast.grace=-1s             | -1000ms | 1s is the default
			resilience.stall-detection.timeout=0s      | 0ms     | stall-detection.enabled=false
			resilience.blocked-loop-detection.threshold=-1s | -1000ms | blocked-loop-detection.enabled=false
			resilience.request-queue-size=0            | 0       | 100000 is the default
			resilience.reconnect.max-delay=0s          | 0ms     | 1s is the default
			resilience.role-change.min-interval=0s     | 0ms     | role-change.enabled=false
			health.timeout=0s                          | 0ms     | 2s is the default
			near-cache.maximum-size=0                  | 0       | 10000 is the default
			near-cache.maximum-bytes=0B                | 0B      | remove it to bound by entries
			near-cache.caches=*,books                  | [*, books] | alone, or list the cache names without it
			""")
	void invalidValueFailsStartupWithBootsAnalysisNamingPropertyValueAndFix(String setting, String value, String fix) {
		String property = "lettuce.tuning." + setting.substring(0, setting.indexOf('='));
		this.contextRunner.withPropertyValues("lettuce.tuning." + setting).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class, (ex) -> {
					assertThat(ex.getName()).isEqualTo(property);
					assertThat(ex.getValue()).hasToString(value);
				});
			FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
			assertThat(analysis.getDescription()).contains("'" + property + "'")
				.contains("'" + value + "'")
				.contains(fix);
		});
	}

}
