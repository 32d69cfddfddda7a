package io.github.lettucetuning.sample;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo runs the shop under load, reports progress, the server's view of the app's
 * connections and the health, and exits cleanly.
 *
 * @author lettuce-tuning
 */
@RedisStandaloneTest
@ExtendWith(OutputCaptureExtension.class)
@Timeout(120)
class DemoIntegrationTests {

	private final RedisStandalone redis;

	DemoIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void demoDrivesLoadAndReportsWithoutErrors(CapturedOutput output) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.profiles("demo")
			.properties("spring.data.redis.host=" + this.redis.host(), "spring.data.redis.port=" + this.redis.port(),
					"demo.duration=3s", "demo.threads=8")
			.run();
		int exitCode = SpringApplication.exit(context);
		assertThat(exitCode).isZero();
		assertThat(output).contains("lettuce-tuning demo: 8 threads for 3s")
			.contains("requests/s")
			.contains("Done:")
			.contains(" 0 errors")
			.contains("connections named 'lettuce-tuning-sample'")
			.contains("GET /actuator/health/redis")
			.contains("\"status\":\"UP\"")
			.contains("GET /actuator/lettuce (summary)")
			.contains("mode shared, 1 shared connection(s)")
			.contains("timer wheel (tick 10ms)");
		assertThat(this.redis.node().commandAsString("EXISTS", "leaderboard")).isEqualTo("1");
	}

}
