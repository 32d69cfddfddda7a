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
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import org.junit.jupiter.api.Timeout;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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

	private static void awaitHealthUp(RestClient http, Process app, Path log) throws IOException {
		AtomicReference<Map<String, Object>> last = new AtomicReference<>();
		try {
			await().atMost(STARTUP)
				.pollInterval(Duration.ofMillis(250))
				.failFast("The AOT-processed application exited", () -> !app.isAlive())
				.until(() -> "UP".equals(healthStatus(http, last)));
		}
		catch (TerminalFailureException ex) {
			throw new AssertionError("The AOT-processed application exited with " + app.exitValue() + ":\n"
					+ Files.readString(log, StandardCharsets.UTF_8));
		}
		catch (ConditionTimeoutException ex) {
			throw new AssertionError("Health not UP within " + STARTUP + " (last: " + last.get() + "):\n"
					+ String.join("\n", List.of(Files.readString(log, StandardCharsets.UTF_8))));
		}
	}

	private static Object healthStatus(RestClient http, AtomicReference<Map<String, Object>> last) {
		try {
			Map<String, Object> health = http.get().uri("/actuator/health").retrieve().body(new ParameterizedTypeReference<>() {
			});
			last.set(health);
			return (health != null) ? health.get("status") : null;
		}
		catch (RuntimeException notYet) {
			// Not listening yet
			return null;
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
