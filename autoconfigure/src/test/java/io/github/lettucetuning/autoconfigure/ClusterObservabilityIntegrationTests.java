package io.github.lettucetuning.autoconfigure;

import java.time.Duration;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.endpoint.LettuceDescriptor;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.state.ServerIdentity;
import io.github.lettucetuning.state.TopologyChange;
import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.server.RedisExecutables;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.ServerVersion;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.micrometer.core.instrument.MeterRegistry;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Cluster health, topology-refresh meters and the endpoint against a real 6-node cluster,
 * through a failover.
 */
@RedisClusterTest
@Timeout(120)
class ClusterObservabilityIntegrationTests {

	private final RedisClusterTopology cluster;

	ClusterObservabilityIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	private ApplicationContextRunner contextRunner(String clientName) {
		String nodes = String.join(",", this.cluster.masters().stream().map((n) -> n.host() + ":" + n.port()).toList());
		return ObservabilityIntegrationSupport.contextRunner(clientName)
			.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes);
	}

	@Test
	void healthReportsTheClusterState() {
		contextRunner("cluster-health").run((context) -> {
			context.getBean(StringRedisTemplate.class).opsForValue().set("cluster", "health");
			Health health = context.getBean(LettuceHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails().get("cluster")).asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsEntry("state", "ok")
				.containsEntry("knownNodes", 6)
				.containsEntry("size", 3)
				.containsEntry("slotsCovered", 16384)
				.containsEntry("slotsFailing", 0)
				.containsEntry("source", "cluster-info");
			// Spring Boot's keys, then the server's name and own version
			ServerVersion server = ServerVersion.of(RedisExecutables.redisServer());
			assertThat(health.getDetails()).containsEntry("cluster_size", 3)
				.containsEntry("slots_up", 16384)
				.containsEntry("slots_fail", 0)
				.containsEntry("server", server.name())
				.containsEntry("version", server.version());
			assertThat(context.getBean(LettuceEndpoint.class).lettuce().server())
				.isEqualTo(new ServerIdentity(server.name(), server.version(), "cluster"));
		});
	}

	@Test
	void userWhoMayNotRunClusterInfoGetsTheClientsView() {
		for (RedisNode node : this.cluster.nodes()) {
			node.command("ACL", "SETUSER", "viewer", "reset", "on", ">viewer-pw", "~*", "&*", "+@all", "-cluster|info");
		}
		try {
			contextRunner("cluster-acl")
				.withPropertyValues("spring.data.redis.username=viewer", "spring.data.redis.password=viewer-pw")
				.run((context) -> {
					context.getBean(StringRedisTemplate.class).opsForValue().set("cluster", "acl");
					Health health = context.getBean(LettuceHealthIndicator.class).health();
					assertThat(health.getStatus()).isEqualTo(Status.UP);
					assertThat(health.getDetails().get("cluster")).asInstanceOf(InstanceOfAssertFactories.MAP)
						.containsEntry("source", "partitions")
						.containsEntry("state", "ok")
						.containsEntry("slotsCovered", 16384)
						.containsEntry("size", 3);
					// INFO is still allowed
					assertThat(health.getDetails()).containsEntry("server",
							ServerVersion.of(RedisExecutables.redisServer()).name());
				});
		}
		finally {
			for (RedisNode node : this.cluster.nodes()) {
				node.command("ACL", "DELUSER", "viewer");
			}
		}
	}

	@Test
	void failoverIsCountedAsATopologyRefreshAndDescribed() {
		contextRunner("cluster-failover").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			for (int i = 0; i < 100; i++) {
				template.opsForValue().set("key:" + i, "value");
			}
			LettuceDescriptor before = context.getBean(LettuceEndpoint.class).lettuce();
			EffectiveConfiguration.Cluster options = before.configuration().cluster();
			assertThat(options).isNotNull();
			assertThat(options.adaptiveTriggers()).contains("moved-redirect");
			assertThat(before.state().topology()).isNotNull();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			double refreshes = registry.get("lettuce.tuning.topology.refreshes").functionCounter().count();
			RedisNode master = this.cluster.masterForKey("key:1");
			RedisNode replica = this.cluster.replicaOf(master);
			this.cluster.failover(replica);
			// Commands to the former master are redirected (MOVED), which triggers a
			// refresh.
			await(Duration.ofSeconds(20), "a topology refresh after the failover", () -> {
				for (int i = 0; i < 20; i++) {
					template.opsForValue().get("key:" + i);
				}
				return registry.get("lettuce.tuning.topology.refreshes").functionCounter().count() > refreshes;
			});
			TopologyChange change = context.getBean(LettuceEndpoint.class).lettuce().state().topology().lastChange();
			assertThat(change).isNotNull();
			assertThat(change.changed()).contains(replica.host() + ":" + replica.port() + " became master");
			assertThat(registry.get("lettuce.tuning.redirections").tag("type", "moved").functionCounter().count())
				.isPositive();
			assertThat(context.getBean(LettuceHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		});
	}

}
