package io.github.lettucetuning.resilience;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.PatternTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A subscription that a reconnect cannot restore is reported, never silent: Redis 7
 * disconnects a subscriber whose ACL no longer allows a channel, Lettuce reconnects and
 * subscribes again, and the server refuses that one channel.
 */
@RedisStandaloneTest(aclUsers = "app:s3cret")
@ExtendWith(OutputCaptureExtension.class)
@Timeout(120)
class SubscriptionWatchIntegrationTests {

	private static final Duration RESTORE_TIMEOUT = SubscriptionWatch.DEFAULT_RESTORE_TIMEOUT;

	private final RedisStandalone redis;

	SubscriptionWatchIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@AfterEach
	void restoreAcl() {
		this.redis.node().command("ACL", "SETUSER", "app", "allchannels");
	}

	@Test
	void subscriptionRefusedAfterAReconnectIsReportedAndTheOthersKeepReceiving(CapturedOutput output) {
		contextRunner().run((context) -> {
			RedisMessageListenerContainer container = context.getBean(RedisMessageListenerContainer.class);
			BlockingQueue<String> channel = new LinkedBlockingQueue<>();
			BlockingQueue<String> pattern = new LinkedBlockingQueue<>();
			container.addMessageListener(collect(channel), new ChannelTopic("watch:revoked"));
			container.addMessageListener(collect(pattern), new PatternTopic("watch:kept:*"));
			assertThat(receives(channel, "watch:revoked", "before")).isTrue();
			assertThat(receives(pattern, "watch:kept:1", "before")).isTrue();
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			assertThat(meters.get("lettuce.tuning.subscriptions.lost").functionCounter().count()).isZero();

			// Redis disconnects the subscriber; Lettuce reconnects and subscribes again
			this.redis.node().command("ACL", "SETUSER", "app", "resetchannels", "&watch:kept:*");

			assertThat(receives(pattern, "watch:kept:1", "after")).as("pattern restored").isTrue();
			ObservabilityIntegrationSupport.await(RESTORE_TIMEOUT.multipliedBy(3), "the lost channel reported",
					() -> meters.get("lettuce.tuning.subscriptions.lost").functionCounter().count() == 1);
			assertThat(meters.get("lettuce.tuning.subscriptions.unrestored").gauge().value()).isOne();
			// The meter counts the loss just before the WARN is written
			ObservabilityIntegrationSupport.await(Duration.ofSeconds(2), "the lost channel logged",
					() -> output.getAll().contains("did not restore channel watch:revoked within"));
			Health health = context.getBean(LettuceHealthIndicator.class).health();
			assertThat(health.getDetails()).containsKey("unrestoredSubscriptions");
			@SuppressWarnings("unchecked")
			List<Map<String, Object>> unrestored = (List<Map<String, Object>>) health.getDetails()
				.get("unrestoredSubscriptions");
			assertThat(unrestored).singleElement()
				.satisfies((entry) -> assertThat(entry).containsEntry("subscription", "channel watch:revoked")
					.containsEntry("server", this.redis.host() + ":" + this.redis.port()));
			ClientState.Subscriptions subscriptions = context.getBean(LettuceEndpoint.class)
				.lettuce()
				.state()
				.subscriptions();
			assertThat(subscriptions.lost()).isOne();
			assertThat(subscriptions.unrestored()).extracting(ClientState.Unrestored::subscription)
				.containsExactly("channel watch:revoked");
		});
	}

	@Test
	void subscriptionRestoredLaterIsNoLongerReported(CapturedOutput output) {
		contextRunner().run((context) -> {
			RedisMessageListenerContainer container = context.getBean(RedisMessageListenerContainer.class);
			BlockingQueue<String> channel = new LinkedBlockingQueue<>();
			container.addMessageListener(collect(channel), new ChannelTopic("watch:revoked"));
			assertThat(receives(channel, "watch:revoked", "before")).isTrue();
			this.redis.node().command("ACL", "SETUSER", "app", "resetchannels", "&watch:kept:*");
			SubscriptionWatch watch = context
				.getBean(io.github.lettucetuning.connection.LettuceTuningConnectionFactory.class)
				.getSubscriptionWatch();
			ObservabilityIntegrationSupport.await(RESTORE_TIMEOUT.multipliedBy(3), "the lost channel reported",
					() -> watch.unrestored().size() == 1);
			// Allowed again, and the next reconnect subscribes again
			this.redis.node().command("ACL", "SETUSER", "app", "allchannels");
			Faults.killClients(this.redis.node(), "subscription-watch");
			ObservabilityIntegrationSupport.await(RESTORE_TIMEOUT.multipliedBy(3), "the channel restored",
					() -> watch.unrestored().isEmpty());
			assertThat(receives(channel, "watch:revoked", "after")).isTrue();
			assertThat(watch.lost()).isOne();
			assertThat(output).contains("restored channel watch:revoked");
		});
	}

	private ApplicationContextRunner contextRunner() {
		return ObservabilityIntegrationSupport.contextRunner("subscription-watch")
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(), "spring.data.redis.username=app",
					"spring.data.redis.password=s3cret", "spring.data.redis.client-name=subscription-watch")
			.withUserConfiguration(ListenerContainerConfiguration.class);
	}

	private static MessageListener collect(BlockingQueue<String> queue) {
		return (message, pattern) -> queue.add(new String(message.getBody(), StandardCharsets.UTF_8));
	}

	// Publishes as the admin user until the listener receives, for at most 5 s: a
	// subscription registers asynchronously.
	private boolean receives(BlockingQueue<String> queue, String channel, String message) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (System.nanoTime() < deadline) {
			this.redis.node().command("PUBLISH", channel, message);
			String received = queue.poll(100, TimeUnit.MILLISECONDS);
			if (message.equals(received)) {
				return true;
			}
		}
		return false;
	}

}
