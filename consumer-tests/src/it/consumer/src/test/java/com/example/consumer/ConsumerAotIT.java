package com.example.consumer;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jar that {@code spring-boot:process-aot} and {@code repackage} built, started with
 * {@code -Dspring.aot.enabled=true} in a process of its own against a real redis-server.
 */
@RedisStandaloneTest
@Timeout(180)
class ConsumerAotIT {

	private static final Duration STARTUP = Duration.ofSeconds(120);

	private final RedisStandalone redis;

	ConsumerAotIT(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void aotProcessedJarStartsAndWorks() throws Exception {
		int port = freePort();
		Path log = Paths.get("target", "aot-app.log");
		Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
		Process app = new ProcessBuilder(java.toString(), "-Dspring.aot.enabled=true", "-jar",
				System.getProperty("consumer.jar"), "--server.port=" + port,
				"--spring.data.redis.host=" + this.redis.host(), "--spring.data.redis.port=" + this.redis.port())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			RestClient http = RestClient.create("http://localhost:" + port);
			awaitHealthUp(http, app, log);
			http.put().uri("/values/consumer:aot").contentType(MediaType.TEXT_PLAIN).body("v3").retrieve().toBodilessEntity();
			assertThat(http.get().uri("/values/consumer:aot").retrieve().body(String.class)).isEqualTo("v3");
			assertThat(this.redis.node().commandAsString("GET", "consumer:aot")).isEqualTo("v3");
			assertThat(http.get().uri("/connection-factory").retrieve().body(String.class))
				.isEqualTo("io.github.lettucetuning.connection.LettuceTuningConnectionFactory");
			assertThat(Files.readString(log)).contains("Starting AOT-processed ConsumerApplication");
		}
		finally {
			app.destroy();
			if (!app.waitFor(30, TimeUnit.SECONDS)) {
				app.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
	}

	private static void awaitHealthUp(RestClient http, Process app, Path log) throws Exception {
		long deadline = System.nanoTime() + STARTUP.toNanos();
		Map<String, Object> last = null;
		while (System.nanoTime() < deadline) {
			if (!app.isAlive()) {
				throw new AssertionError("The AOT-processed application exited with " + app.exitValue() + ":\n"
						+ Files.readString(log, StandardCharsets.UTF_8));
			}
			try {
				last = http.get().uri("/actuator/health").retrieve().body(new ParameterizedTypeReference<>() {
				});
				if (last != null && "UP".equals(last.get("status"))) {
					return;
				}
			}
			catch (RuntimeException notYet) {
				// Not listening yet, or not UP yet
			}
			Thread.sleep(250);
		}
		throw new AssertionError("Health not UP within " + STARTUP + " (last: " + last + "):\n"
				+ String.join("\n", List.of(Files.readString(log, StandardCharsets.UTF_8))));
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
