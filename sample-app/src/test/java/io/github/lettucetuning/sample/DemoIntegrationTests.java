package io.github.lettucetuning.sample;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import io.github.lettucetuning.sample.demo.ComparisonDemo;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The side-by-side demo runs each setup against a real Redis, prints the comparison,
 * writes the chart and ends with the tuned application's summary.
 */
@RedisStandaloneTest
@Timeout(180)
class DemoIntegrationTests {

	private final RedisStandalone redis;

	DemoIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void demoComparesStockAndTunedSetupsWithoutErrors(@TempDir Path output) throws Exception {
		ByteArrayOutputStream captured = new ByteArrayOutputStream();
		PrintStream original = System.out;
		int exitCode;
		System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
		try {
			exitCode = ComparisonDemo.run(SampleApplication.class,
					new String[] { "--demo", "--demo.setups=stock,shared", "--demo.warmup=1s", "--demo.duration=2s",
							"--demo.threads=8", "--demo.output-directory=" + output,
							"--spring.data.redis.host=" + this.redis.host(),
							"--spring.data.redis.port=" + this.redis.port() });
		}
		finally {
			System.setOut(original);
		}
		String text = captured.toString(StandardCharsets.UTF_8);
		original.println(text);
		assertThat(exitCode).isZero();
		assertThat(text).contains("lettuce-tuning demo: the same shop workload, 8 threads")
			.contains("requests/s  p99")
			.containsPattern("\\| stock +\\| +[0-9,]+ \\| +1\\.00x \\|")
			.containsPattern("\\| shared +\\| +[0-9,]+ \\|")
			.contains("GET /actuator/health/redis")
			.contains("\"status\":\"UP\"")
			.contains("GET /actuator/lettuce (summary)")
			.contains("mode shared, 1 shared connection(s)")
			.contains("timer wheel (tick 10ms)");
		assertThat(output.resolve("lettuce-tuning-demo.png")).isNotEmptyFile();
		assertThat(Files.size(output.resolve("lettuce-tuning-demo.png"))).isGreaterThan(5000);
		assertThat(this.redis.node().commandAsString("EXISTS", "leaderboard")).isEqualTo("1");
	}

}
