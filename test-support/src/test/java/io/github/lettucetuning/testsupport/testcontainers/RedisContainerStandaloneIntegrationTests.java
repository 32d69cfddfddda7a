package io.github.lettucetuning.testsupport.testcontainers;

import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Integration tests for {@link RedisContainerStandalone}; skipped without Docker.
 */
@Testcontainers(disabledWithoutDocker = true)
class RedisContainerStandaloneIntegrationTests {

	@Test
	void startsThePinnedImage() {
		try (RedisContainerStandalone redis = RedisContainerStandalone.start()) {
			assertThat(redis.container().getDockerImageName()).isEqualTo(TestImages.REDIS);
			assertThat(redis.command("SET", "key", "value")).isEqualTo("OK");
			assertThat(redis.command("GET", "key")).isEqualTo("value");
			assertThat(redis.uri()).isEqualTo("redis://" + redis.host() + ":" + redis.port());
		}
	}

}
