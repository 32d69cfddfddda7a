package io.github.lettucetuning.sample;

import io.github.lettucetuning.connection.ConnectionMode;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.testsupport.server.RespClient;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an application that gets its Redis from connection details (a Testcontainers
 * {@code @ServiceConnection}, or a bean of its own) must see: the starter's connection
 * factory in the configured mode, talking to the server the details name.
 */
final class StarterConnectionAssertions {

	private StarterConnectionAssertions() {
	}

	static void assertStarterConnection(ApplicationContext context, ConnectionMode mode, String host, int port) {
		DataRedisConnectionDetails details = context.getBean(DataRedisConnectionDetails.class);
		assertThat(details.getStandalone()).isNotNull();
		assertThat(details.getStandalone().getPort()).isEqualTo(port);
		RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
		assertThat(factory).isInstanceOf(LettuceTuningConnectionFactory.class);
		assertThat(((LettuceTuningConnectionFactory) factory).getMode()).isEqualTo(mode);
		StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
		String key = "service-connection:" + mode;
		redis.opsForValue().set(key, mode.name());
		assertThat(redis.opsForValue().get(key)).isEqualTo(mode.name());
		try (RespClient server = RespClient.connect(host, port)) {
			assertThat(server.commandAsString("GET", key)).isEqualTo(mode.name());
		}
	}

}
