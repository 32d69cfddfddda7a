package io.github.lettucetuning.cluster;

import java.time.Duration;

import io.github.lettucetuning.cluster.SubscriptionProbe.Kind;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * A listener container subscribed to a channel, a pattern and keyspace notifications
 * keeps receiving after its server restarts, in every connection mode.
 */
@RedisStandaloneTest
@Timeout(120)
class StandaloneSubscriptionsIntegrationTests {

	private final RedisStandalone redis;

	StandaloneSubscriptionsIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void enableKeyspaceNotifications() {
		Faults.recover(this.redis.node());
		SubscriptionProbe.enableKeyspaceNotifications(this.redis.node());
	}

	@ParameterizedTest
	@ValueSource(strings = { "shared", "multi", "pooled" })
	void subscriptionsSurviveARestart(String mode) {
		contextRunner("subscriptions-restart-" + mode).withPropertyValues("lettuce.tuning.connection.mode=" + mode)
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				RedisMessageListenerContainer container = context.getBean(RedisMessageListenerContainer.class);
				try (SubscriptionProbe probe = SubscriptionProbe.start(template, container, true, Kind.CHANNEL,
						Kind.PATTERN, Kind.KEYSPACE)) {
					FaultLoad.sleep(Duration.ofSeconds(1));
					long fault = probe.now();
					this.redis.node().restart();
					SubscriptionProbe.enableKeyspaceNotifications(this.redis.node());
					long restarted = probe.now();
					long recovery = probe.publishUntilAfterRecovery(restarted, Duration.ofSeconds(5),
							Duration.ofSeconds(20));
					probe.assertEveryMessageAfterRecovery("standalone-restart-" + mode, fault, recovery, Kind.CHANNEL,
							Kind.PATTERN, Kind.KEYSPACE);
				}
			});
	}

	private ApplicationContextRunner contextRunner(String clientName) {
		return FaultTestSupport.contextRunner(clientName)
			.withPropertyValues("spring.data.redis.port=" + this.redis.port())
			.withUserConfiguration(SubscriptionProbe.ListenerContainerConfiguration.class);
	}

}
