package io.github.lettucetuning.cluster;

import java.time.Duration;

import io.github.lettucetuning.cluster.SubscriptionProbe.Kind;
import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * A listener container subscribed to a channel and a pattern keeps receiving across a
 * failover or the crash of the cluster node its Pub/Sub connection is on. {@code PUBLISH}
 * reaches every node of a cluster, so the connection may subscribe on any node; keyspace
 * notifications stay on the node of their key and are not checked here (see
 * docs/outages.md#subscriptions).
 */
@RedisClusterTest
@Timeout(180)
class ClusterSubscriptionsIntegrationTests {

	private final RedisClusterTopology cluster;

	ClusterSubscriptionsIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	void subscriptionsSurviveAFailoverOfTheirNode() {
		contextRunner("subscriptions-cluster-failover").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			RedisMessageListenerContainer container = context.getBean(RedisMessageListenerContainer.class);
			try (SubscriptionProbe probe = SubscriptionProbe.start(template, container, false, Kind.CHANNEL,
					Kind.PATTERN)) {
				RedisNode subscribed = subscribedNode("subscriptions-cluster-failover");
				RedisNode replica = "master".equals(subscribed.role()) ? this.cluster.replicaOf(subscribed)
						: subscribed;
				FaultLoad.sleep(Duration.ofSeconds(1));
				long fault = probe.now();
				this.cluster.failover(replica);
				long failedOver = probe.now();
				long recovery = probe.publishUntilAfterRecovery(failedOver, Duration.ofSeconds(5),
						Duration.ofSeconds(30));
				probe.assertEveryMessageAfterRecovery("cluster-failover subscribed on " + subscribed.port(), fault,
						recovery, Kind.CHANNEL, Kind.PATTERN);
			}
		});
	}

	@Test
	void subscriptionsSurviveTheCrashOfTheirNode() {
		contextRunner("subscriptions-cluster-kill").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			RedisMessageListenerContainer container = context.getBean(RedisMessageListenerContainer.class);
			RedisNode subscribed = null;
			try (SubscriptionProbe probe = SubscriptionProbe.start(template, container, false, Kind.CHANNEL,
					Kind.PATTERN)) {
				subscribed = subscribedNode("subscriptions-cluster-kill");
				boolean master = "master".equals(subscribed.role());
				FaultLoad.sleep(Duration.ofSeconds(1));
				long fault = probe.now();
				if (master) {
					this.cluster.killMaster(subscribed);
					this.cluster.awaitReplicaPromoted(subscribed);
				}
				else {
					Faults.kill(subscribed);
				}
				long recovered = probe.now();
				long recovery = probe.publishUntilAfterRecovery(recovered, Duration.ofSeconds(5),
						Duration.ofSeconds(30));
				probe.assertEveryMessageAfterRecovery(
						"cluster-kill of the subscribed " + (master ? "master " : "replica ") + subscribed.port(),
						fault, recovery, Kind.CHANNEL, Kind.PATTERN);
			}
			finally {
				if (subscribed != null) {
					Faults.recover(subscribed);
					this.cluster.awaitClusterOk();
				}
			}
		});
	}

	// The node whose client list shows the container's Pub/Sub connection.
	private RedisNode subscribedNode(String clientName) {
		for (RedisNode node : this.cluster.nodes()) {
			for (ClientInfo client : node.clientList()) {
				if (client.name().equals(clientName) && !"0".equals(client.fields().getOrDefault("psub", "0"))) {
					return node;
				}
			}
		}
		throw new AssertionError("No node has the Pub/Sub connection of " + clientName);
	}

	private ApplicationContextRunner contextRunner(String clientName) {
		return FaultTestSupport.clusterContextRunner(clientName, this.cluster)
			.withUserConfiguration(SubscriptionProbe.ListenerContainerConfiguration.class);
	}

}
