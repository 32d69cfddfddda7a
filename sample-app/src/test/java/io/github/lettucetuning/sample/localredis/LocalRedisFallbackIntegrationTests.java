package io.github.lettucetuning.sample.localredis;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LocalRedisFallback} with real processes.
 */
@RedisStandaloneTest
@Timeout(60)
class LocalRedisFallbackIntegrationTests {

	private final RedisStandalone running;

	LocalRedisFallbackIntegrationTests(RedisStandalone running) {
		this.running = running;
	}

	@Test
	void startsALocalServerWhenNoneIsConfiguredOrRunningAndStopsIt() throws IOException {
		LocalRedisFallback fallback = new LocalRedisFallback(new InetSocketAddress("127.0.0.1", closedPort()));
		StandardEnvironment environment = new StandardEnvironment();
		fallback.startIfNeeded(environment);
		LocalRedisServer server = fallback.server();
		assertThat(server).isNotNull();
		assertThat(environment.getProperty("spring.data.redis.port", Integer.class)).isEqualTo(server.port());
		assertThat(LocalRedisFallback.answersPing(new InetSocketAddress(server.host(), server.port()))).isTrue();
		fallback.stop();
		assertThat(server.isAlive()).isFalse();
		assertThat(LocalRedisFallback.answersPing(new InetSocketAddress(server.host(), server.port()))).isFalse();
	}

	@Test
	void leavesARunningServerAlone() {
		LocalRedisFallback fallback = new LocalRedisFallback(
				new InetSocketAddress(this.running.host(), this.running.port()));
		StandardEnvironment environment = new StandardEnvironment();
		fallback.startIfNeeded(environment);
		assertThat(fallback.server()).isNull();
		assertThat(environment.getPropertySources().contains("localRedisFallback")).isFalse();
	}

	@Test
	void leavesAConfiguredRedisAlone() throws IOException {
		LocalRedisFallback fallback = new LocalRedisFallback(new InetSocketAddress("127.0.0.1", closedPort()));
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("app", Map.of("spring.data.redis.host", "redis.example.com")));
		fallback.startIfNeeded(environment);
		assertThat(fallback.server()).isNull();
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
