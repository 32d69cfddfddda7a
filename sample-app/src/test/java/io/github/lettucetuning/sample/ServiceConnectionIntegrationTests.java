package io.github.lettucetuning.sample;

import io.github.lettucetuning.connection.ConnectionMode;
import io.github.lettucetuning.testsupport.testcontainers.TestImages;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestPropertySource;

import static io.github.lettucetuning.sample.StarterConnectionAssertions.assertStarterConnection;

/**
 * A user's test with {@code @ServiceConnection} on a Redis container gets the starter's
 * connection factory, in each mode. Skipped where no Docker runs;
 * {@link ConnectionDetailsIntegrationTests} makes the same assertions against a local
 * {@code redis-server}.
 */
@Testcontainers(disabledWithoutDocker = true)
@SpringBootTest(classes = SampleApplication.class)
class ServiceConnectionIntegrationTests {

	@Container
	@ServiceConnection(name = "redis")
	static final GenericContainer<?> redis = new GenericContainer<>(TestImages.redis()).withExposedPorts(6379);

	@Autowired
	private ApplicationContext context;

	@Test
	void sharedModeByDefault() {
		assertStarterConnection(this.context, ConnectionMode.SHARED, redis.getHost(), redis.getMappedPort(6379));
	}

	@Nested
	@TestPropertySource(properties = "lettuce.tuning.connection.mode=multi")
	class Multi {

		@Autowired
		private ApplicationContext context;

		@Test
		void multiMode() {
			assertStarterConnection(this.context, ConnectionMode.MULTI, redis.getHost(), redis.getMappedPort(6379));
		}

	}

	@Nested
	@TestPropertySource(properties = "lettuce.tuning.connection.mode=pooled")
	class Pooled {

		@Autowired
		private ApplicationContext context;

		@Test
		void pooledMode() {
			assertStarterConnection(this.context, ConnectionMode.POOLED, redis.getHost(), redis.getMappedPort(6379));
		}

	}

}
