package io.github.lettucetuning.cluster;

import java.time.Duration;
import java.util.stream.Collectors;

import io.github.lettucetuning.cluster.SubscriptionProbe.Kind;
import io.github.lettucetuning.testsupport.RedisSentinelTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * A listener container subscribed to a channel, a pattern and keyspace notifications
 * keeps receiving across a Sentinel failover: its Pub/Sub connection follows the new
 * master and subscribes again.
 */
@RedisSentinelTest
@Timeout(120)
class SentinelSubscriptionsIntegrationTests {

	private final RedisSentinelTopology sentinel;

	SentinelSubscriptionsIntegrationTests(RedisSentinelTopology sentinel) {
		this.sentinel = sentinel;
	}

	@BeforeEach
	void enableKeyspaceNotifications() {
		SubscriptionProbe.enableKeyspaceNotifications(this.sentinel.master());
		SubscriptionProbe.enableKeyspaceNotifications(this.sentinel.replica());
	}

	@Test
	void subscriptionsSurviveAFailover() {
		contextRunner("subscriptions-sentinel").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			RedisMessageListenerContainer container = context.getBean(RedisMessageListenerContainer.class);
			try (SubscriptionProbe probe = SubscriptionProbe.start(template, container, true, Kind.CHANNEL,
					Kind.PATTERN, Kind.KEYSPACE)) {
				FaultLoad.sleep(Duration.ofSeconds(1));
				long fault = probe.now();
				RedisNode promoted = this.sentinel.failover();
				long failedOver = probe.now();
				long recovery = probe.publishUntilAfterRecovery(failedOver, Duration.ofSeconds(5),
						Duration.ofSeconds(30));
				probe.assertEveryMessageAfterRecovery("sentinel-failover to " + promoted.port(), fault, recovery,
						Kind.CHANNEL, Kind.PATTERN, Kind.KEYSPACE);
			}
		});
	}

	private ApplicationContextRunner contextRunner(String clientName) {
		String sentinels = this.sentinel.sentinels()
			.stream()
			.map((node) -> node.host() + ":" + node.port())
			.collect(Collectors.joining(","));
		return FaultTestSupport.contextRunner(clientName)
			.withPropertyValues("spring.data.redis.sentinel.master=" + this.sentinel.masterName(),
					"spring.data.redis.sentinel.nodes=" + sentinels)
			.withUserConfiguration(SubscriptionProbe.ListenerContainerConfiguration.class);
	}

}
