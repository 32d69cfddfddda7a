package io.github.lettucetuning.sample;

import io.github.lettucetuning.connection.ConnectionMode;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.ConfigurableApplicationContext;

import static io.github.lettucetuning.sample.StarterConnectionAssertions.assertStarterConnection;

/**
 * The assertions of {@link ServiceConnectionIntegrationTests} against a local
 * {@code redis-server}, so that they run where no Docker does. Redis is given the way
 * {@code @ServiceConnection} gives it: as a {@link DataRedisConnectionDetails} bean, with
 * no {@code spring.data.redis.*} property set.
 */
@RedisStandaloneTest
@Timeout(120)
class ConnectionDetailsIntegrationTests {

	private final RedisStandalone redis;

	ConnectionDetailsIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@ParameterizedTest
	@EnumSource(ConnectionMode.class)
	void starterFactoryInEachMode(ConnectionMode mode) {
		DataRedisConnectionDetails details = new DataRedisConnectionDetails() {

			@Override
			public Standalone getStandalone() {
				return Standalone.of(ConnectionDetailsIntegrationTests.this.redis.host(),
						ConnectionDetailsIntegrationTests.this.redis.port());
			}

		};
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
			.web(WebApplicationType.NONE)
			.initializers((initializing) -> initializing.getBeanFactory()
				.registerSingleton("redisConnectionDetails", details))
			.properties("lettuce.tuning.connection.mode=" + mode.name().toLowerCase())
			.run()) {
			assertStarterConnection(context, mode, this.redis.host(), this.redis.port());
		}
	}

}
