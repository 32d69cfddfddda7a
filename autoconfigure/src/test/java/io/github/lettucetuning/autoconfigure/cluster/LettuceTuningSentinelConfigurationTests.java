package io.github.lettucetuning.autoconfigure.cluster;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.cluster.ChannelTracker;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.github.lettucetuning.socket.FlushConsolidation;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LettuceTuningSentinelConfiguration}.
 */
class LettuceTuningSentinelConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@Test
	void sentinelModeTracksChannelsAndWatchesForSwitches() {
		// Nothing listens on these ports: the watcher logs that and the application
		// starts
		this.contextRunner
			.withPropertyValues("spring.data.redis.sentinel.master=mymaster",
					"spring.data.redis.sentinel.nodes=127.0.0.1:1,127.0.0.1:2")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				NettyCustomizer customizer = context.getBean(ClientResources.class).nettyCustomizer();
				assertThat(CompositeNettyCustomizer.includes(customizer, context.getBean(ChannelTracker.class)))
					.isTrue();
				assertThat(CompositeNettyCustomizer.find(customizer, FlushConsolidation.class)).isNotNull();
				assertThat(context.getBean(SentinelFailoverWatcherLifecycle.class).isRunning()).isTrue();
			});
	}

	@Test
	void otherModesLeaveTheNettyCustomizerAlone() {
		this.contextRunner.run((context) -> {
			assertThat(CompositeNettyCustomizer.includes(context.getBean(ClientResources.class).nettyCustomizer(),
					context.getBean(ChannelTracker.class)))
				.isFalse();
			assertThat(context.getBean(SentinelFailoverWatcherLifecycle.class).isRunning()).isFalse();
		});
	}

	@Test
	void canBeSwitchedOff() {
		this.contextRunner
			.withPropertyValues("lettuce.tuning.sentinel.follow-switch-master=false",
					"spring.data.redis.sentinel.master=mymaster", "spring.data.redis.sentinel.nodes=127.0.0.1:1")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(SentinelFailoverWatcherLifecycle.class);
				assertThat(CompositeNettyCustomizer.find(context.getBean(ClientResources.class).nettyCustomizer(),
						ChannelTracker.class))
					.isNull();
			});
	}

}
