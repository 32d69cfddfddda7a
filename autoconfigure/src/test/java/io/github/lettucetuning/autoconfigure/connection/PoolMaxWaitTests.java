package io.github.lettucetuning.autoconfigure.connection;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.ExplicitProperties;
import io.github.lettucetuning.connection.ConnectionMode;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link PoolMaxWait}.
 */
class PoolMaxWaitTests {

	private final MockEnvironment environment = new MockEnvironment();

	@Test
	void unsetWaitIsTwoSecondsForDedicatedWork() {
		this.environment.setProperty("spring.data.redis.timeout", "5s");
		assertThat(maxWait(ConnectionMode.SHARED)).isEqualTo(Duration.ofSeconds(2));
		assertThat(maxWait(ConnectionMode.MULTI)).isEqualTo(Duration.ofSeconds(2));
	}

	@Test
	void unsetWaitIsTheCommandTimeoutInPooledMode() {
		assertThat(maxWait(ConnectionMode.POOLED)).isEqualTo(Duration.ofSeconds(60));
		this.environment.setProperty("spring.data.redis.timeout", "5s");
		assertThat(maxWait(ConnectionMode.POOLED)).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void setWaitIsUsedAsItIs() {
		this.environment.setProperty("spring.data.redis.lettuce.pool.max-wait", "300ms");
		assertThat(maxWait(ConnectionMode.SHARED)).isEqualTo(Duration.ofMillis(300));
		assertThat(maxWait(ConnectionMode.POOLED)).isEqualTo(Duration.ofMillis(300));
	}

	@Test
	void setWaitOfForeverIsTheApplicationsChoice() {
		this.environment.setProperty("spring.data.redis.lettuce.pool.max-wait", "-1ms");
		assertThat(maxWait(ConnectionMode.SHARED)).isEqualTo(Duration.ofMillis(-1));
		assertThat(DedicatedPoolFactory.poolConfig(redis().getLettuce().getPool(), maxWait(ConnectionMode.SHARED))
			.getMaxWaitDuration()).isNegative();
	}

	@Test
	void setWaitIsRecognisedInAnyRelaxedForm() {
		this.environment.setProperty("spring.data.redis.lettuce.pool.maxWait", "-1");
		assertThat(maxWait(ConnectionMode.SHARED)).isEqualTo(Duration.ofMillis(-1));
	}

	private Duration maxWait(ConnectionMode mode) {
		return PoolMaxWait.of(redis(), mode, ExplicitProperties.of(this.environment));
	}

	private DataRedisProperties redis() {
		return Binder.get(this.environment).bindOrCreate("spring.data.redis", DataRedisProperties.class);
	}

}
