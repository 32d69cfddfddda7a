package io.github.lettucetuning.connection;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.state.ServerIdentity;
import io.github.lettucetuning.testsupport.RedisSentinelTest;
import io.github.lettucetuning.testsupport.server.RedisExecutables;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.ServerVersion;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared mode through Sentinel: commands reach the master Sentinel names, over one shared
 * connection.
 */
@RedisSentinelTest
@Timeout(120)
class SentinelIntegrationTests {

	private final RedisSentinelTopology sentinel;

	SentinelIntegrationTests(RedisSentinelTopology sentinel) {
		this.sentinel = sentinel;
	}

	@Test
	void plainCommandsShareOneConnectionToTheMaster() {
		TopologiesIntegrationSupport.contextRunner("sentinel-it")
			.withPropertyValues("spring.data.redis.sentinel.master=" + this.sentinel.masterName(),
					"spring.data.redis.sentinel.nodes=" + sentinels())
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				long failures = Load.run(20, 100, (i) -> template.opsForValue().set("s:" + i, "v" + i));
				assertThat(failures).isZero();
				RedisNode master = this.sentinel.currentMaster();
				assertThat(master.commandAsString("GET", "s:1999")).isEqualTo("v1999");
				assertThat(master.countClients("sentinel-it")).isOne();
			});
	}

	@Test
	void healthAndEndpointNameTheMastersServerAndItsOwnVersion() {
		ServerVersion server = ServerVersion.of(RedisExecutables.redisServer());
		ObservabilityIntegrationSupport.contextRunner("sentinel-health")
			.withPropertyValues("spring.data.redis.sentinel.master=" + this.sentinel.masterName(),
					"spring.data.redis.sentinel.nodes=" + sentinels())
			.run((context) -> {
				Health health = context.getBean(LettuceHealthIndicator.class).health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("version", server.version())
					.containsEntry("server", server.name())
					.containsEntry("check", "info");
				// the master answers, not a Sentinel
				assertThat(context.getBean(LettuceEndpoint.class).lettuce().server())
					.isEqualTo(new ServerIdentity(server.name(), server.version(), "standalone", "primary"));
			});
	}

	private String sentinels() {
		return String.join(",",
				this.sentinel.sentinels().stream().map((node) -> node.host() + ":" + node.port()).toList());
	}

}
