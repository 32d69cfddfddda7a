package io.github.lettucetuning.sample.localredis;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerLauncher;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LocalRedisFallback} with real processes.
 *
 * @author lettuce-tuning
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
		LocalRedisFallback fallback = new LocalRedisFallback(new InetSocketAddress("127.0.0.1", closedPort()),
				new RedisServerLauncher());
		StandardEnvironment environment = new StandardEnvironment();
		fallback.startIfNeeded(environment);
		RedisNode node = fallback.node();
		assertThat(node).isNotNull();
		assertThat(environment.getProperty("spring.data.redis.port", Integer.class)).isEqualTo(node.port());
		assertThat(node.commandAsString("PING")).isEqualTo("PONG");
		fallback.stop();
		assertThat(node.isAlive()).isFalse();
	}

	@Test
	void leavesARunningServerAlone() {
		LocalRedisFallback fallback = new LocalRedisFallback(
				new InetSocketAddress(this.running.host(), this.running.port()), new RedisServerLauncher());
		StandardEnvironment environment = new StandardEnvironment();
		fallback.startIfNeeded(environment);
		assertThat(fallback.node()).isNull();
		assertThat(environment.getPropertySources().contains("localRedisFallback")).isFalse();
	}

	@Test
	void leavesAConfiguredRedisAlone() throws IOException {
		LocalRedisFallback fallback = new LocalRedisFallback(new InetSocketAddress("127.0.0.1", closedPort()),
				new RedisServerLauncher());
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources()
			.addFirst(new MapPropertySource("app", Map.of("spring.data.redis.host", "redis.example.com")));
		fallback.startIfNeeded(environment);
		assertThat(fallback.node()).isNull();
	}

	private static int closedPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
