package io.github.lettucetuning.health;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.testsupport.RedisSentinelTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The health check's separate route to Redis behind Sentinel: the master the sentinels
 * name answers a plain {@code PING}, and a stopped master does not.
 */
@RedisSentinelTest
@Timeout(60)
class RedisProbeSentinelIntegrationTests {

	private final RedisSentinelTopology sentinel;

	RedisProbeSentinelIntegrationTests(RedisSentinelTopology sentinel) {
		this.sentinel = sentinel;
	}

	@Test
	void pingsTheMasterTheSentinelsName() {
		String sentinels = String.join(",",
				this.sentinel.sentinels().stream().map((node) -> node.host() + ":" + node.port()).toList());
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.sentinel.master=" + this.sentinel.masterName(),
					"spring.data.redis.sentinel.nodes=" + sentinels)
			.run((context) -> {
				context.getBean(StringRedisTemplate.class).opsForValue().set("probe", "v");
				RedisProbe probe = new RedisProbe(context.getBean(LettuceTuningConnectionFactory.class));
				RedisNode master = this.sentinel.currentMaster();
				String address = master.host() + ":" + master.port();
				assertThat(probe.ping(Duration.ofSeconds(2)))
					.isEqualTo(new RedisProbe.Outcome(RedisProbe.State.ALIVE, address));
				// Shorter than the sentinels' down-after, so that no failover starts.
				Faults.pause(master);
				try {
					assertThat(probe.ping(Duration.ofMillis(300)))
						.isEqualTo(new RedisProbe.Outcome(RedisProbe.State.SILENT, address));
				}
				finally {
					Faults.resume(master);
				}
			});
	}

}
