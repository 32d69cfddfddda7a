package io.github.lettucetuning.resilience;

import java.util.List;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.testsupport.RedisSentinelTest;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Sentinel-defined connection keeps asking for maintenance notifications after a
 * refusal: its client also connects to the Sentinels, whose refusal says nothing of the
 * master's support.
 */
@RedisSentinelTest
@Timeout(120)
class SentinelMaintenanceNotificationsIntegrationTests {

	private final RedisSentinelTopology sentinel;

	SentinelMaintenanceNotificationsIntegrationTests(RedisSentinelTopology sentinel) {
		this.sentinel = sentinel;
	}

	@Test
	void sentinelDefinedClientKeepsAsking() {
		List<String> sentinels = this.sentinel.sentinels()
			.stream()
			.map((node) -> node.host() + ":" + node.port())
			.toList();
		ObservabilityIntegrationSupport.contextRunner("sentinel-maint")
			.withPropertyValues("spring.data.redis.sentinel.master=" + this.sentinel.masterName(),
					"spring.data.redis.sentinel.nodes=" + String.join(",", sentinels))
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("sentinel-maint", "v");
				assertThat(template.opsForValue().get("sentinel-maint")).isEqualTo("v");
				assertThat(context.getBean(OutageGuard.class).maintenanceNotifications().refusals()).isPositive();
				assertThat(context.getBean(LettuceConnectionFactory.class)
					.getRequiredNativeClient()
					.getOptions()
					.getMaintNotificationsConfig()
					.maintNotificationsEnabled()).isTrue();
			});
	}

}
