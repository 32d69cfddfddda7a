package io.github.lettucetuning.connection;

import io.github.lettucetuning.testsupport.RedisSentinelTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
		String sentinels = String.join(",",
				this.sentinel.sentinels().stream().map((node) -> node.host() + ":" + node.port()).toList());
		TopologiesIntegrationSupport.contextRunner("sentinel-it")
			.withPropertyValues("spring.data.redis.sentinel.master=" + this.sentinel.masterName(),
					"spring.data.redis.sentinel.nodes=" + sentinels)
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				long failures = Load.run(20, 100, (i) -> template.opsForValue().set("s:" + i, "v" + i));
				assertThat(failures).isZero();
				RedisNode master = this.sentinel.currentMaster();
				assertThat(master.commandAsString("GET", "s:1999")).isEqualTo("v1999");
				assertThat(master.countClients("sentinel-it")).isOne();
			});
	}

}
