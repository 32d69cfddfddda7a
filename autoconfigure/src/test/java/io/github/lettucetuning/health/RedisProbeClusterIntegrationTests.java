package io.github.lettucetuning.health;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The health check's separate route to a cluster: every master that holds slots answers a
 * plain {@code PING}, and a stopped master is named.
 */
@RedisClusterTest
@Timeout(60)
class RedisProbeClusterIntegrationTests {

	private final RedisClusterTopology cluster;

	RedisProbeClusterIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	void pingsEveryMasterThatHoldsSlots() {
		String nodes = String.join(",", this.cluster.masters().stream().map((n) -> n.host() + ":" + n.port()).toList());
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes)
			.run((context) -> {
				context.getBean(StringRedisTemplate.class).opsForValue().set("probe", "v");
				RedisProbe probe = new RedisProbe(context.getBean(LettuceTuningConnectionFactory.class));
				RedisProbe.Outcome alive = probe.ping(Duration.ofSeconds(2));
				assertThat(alive.state()).isEqualTo(RedisProbe.State.ALIVE);
				assertThat(alive.about().split(", ")).containsExactlyInAnyOrderElementsOf(
						this.cluster.masters().stream().map((n) -> n.host() + ":" + n.port()).toList());
				RedisNode master = this.cluster.masters().get(0);
				// Shorter than the node timeout, so that no failover starts.
				Faults.pause(master);
				try {
					assertThat(probe.ping(Duration.ofMillis(300))).isEqualTo(
							new RedisProbe.Outcome(RedisProbe.State.SILENT, master.host() + ":" + master.port()));
				}
				finally {
					Faults.resume(master);
				}
			});
	}

}
