package io.github.lettucetuning.autoconfigure.metrics;

import java.time.Duration;
import java.util.List;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.metrics.ClientEventMetrics;
import io.github.lettucetuning.metrics.ConnectionMetrics;
import io.github.lettucetuning.metrics.DedicatedPoolMetrics;
import io.github.lettucetuning.metrics.TimerMetrics;
import io.github.lettucetuning.observation.CommandMeters;
import io.github.lettucetuning.observation.GuardedTracing;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.github.lettucetuning.state.ClientEventRecorder;
import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.metrics.MicrometerCommandLatencyRecorder;
import io.lettuce.core.metrics.MicrometerOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.tracing.MicrometerTracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LettuceTuningMetricsAutoConfiguration}.
 */
class LettuceTuningMetricsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class,
				LettuceTuningMetricsAutoConfiguration.class));

	private static final AutoConfigurations BOOT_OBSERVATION = AutoConfigurations.of(ObservationAutoConfiguration.class,
			LettuceObservationAutoConfiguration.class);

	private final ApplicationContextRunner withMeterRegistry = this.contextRunner
		.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class));

	@Test
	void withAMeterRegistryCommandLatenciesGoToMicrometer() {
		this.withMeterRegistry.run((context) -> {
			assertThat(context).hasSingleBean(MicrometerCommandLatencyRecorder.class)
				.hasSingleBean(MicrometerOptions.class);
			CommandLatencyRecorder recorder = context.getBean(ClientResources.class).commandLatencyRecorder();
			assertThat(recorder).isSameAs(context.getBean(MicrometerCommandLatencyRecorder.class));
			assertThat(recorder.isEnabled()).isTrue();
		});
	}

	@Test
	void withoutAMeterRegistryLatenciesAreNotRecordedAtAll() {
		this.contextRunner.run((context) -> {
			assertThat(context).doesNotHaveBean(MicrometerCommandLatencyRecorder.class)
				.doesNotHaveBean(ConnectionMetrics.class);
			assertThat(context.getBean(ClientResources.class).commandLatencyRecorder().isEnabled()).isFalse();
		});
	}

	@Test
	void withoutMicrometerLatenciesAreNotRecordedAtAll() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(MicrometerCommandLatencyRecorder.class);
			assertThat(context.getBean(ClientResources.class).commandLatencyRecorder().isEnabled()).isFalse();
		});
	}

	@Test
	void commandLatencyCanBeSwitchedOff() {
		this.withMeterRegistry.withPropertyValues("lettuce.tuning.metrics.command-latency.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(MicrometerCommandLatencyRecorder.class)
					.hasSingleBean(ConnectionMetrics.class);
				assertThat(context.getBean(ClientResources.class).commandLatencyRecorder().isEnabled()).isFalse();
			});
	}

	@Test
	void tuningMetersCanBeSwitchedOffWithoutLosingCommandLatencies() {
		this.withMeterRegistry.withPropertyValues("lettuce.tuning.metrics.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(ConnectionMetrics.class)
				.doesNotHaveBean(ClientEventRecorder.class)
				.hasSingleBean(MicrometerCommandLatencyRecorder.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.find("lettuce.tuning.connections").meters()).isEmpty();
		});
	}

	@Test
	void tuningMetersAreRegistered() {
		this.withMeterRegistry.run((context) -> {
			assertThat(context).hasSingleBean(ConnectionMetrics.class)
				.hasSingleBean(TimerMetrics.class)
				.hasSingleBean(ClientEventMetrics.class)
				.hasSingleBean(DedicatedPoolMetrics.class)
				.hasSingleBean(ClientEventRecorder.class);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("lettuce.tuning.connections")
				.tags("mode", "shared", "state", "unopened")
				.gauge()
				.value()).isOne();
			assertThat(registry.get("lettuce.tuning.connections").tags("state", "open").gauge().value()).isZero();
			assertThat(registry.get("lettuce.tuning.timer.pending").tag("type", "wheel").gauge()).isNotNull();
			assertThat(registry.get("lettuce.tuning.timer.expired").functionCounter().count()).isZero();
			assertThat(registry.get("lettuce.tuning.command.timeouts").functionCounter().count()).isZero();
			assertThat(registry.get("lettuce.tuning.reconnects").functionCounter()).isNotNull();
			assertThat(registry.get("lettuce.tuning.topology.refreshes").functionCounter()).isNotNull();
			assertThat(registry.get("lettuce.tuning.redirections").tag("type", "moved").functionCounter()).isNotNull();
			assertThat(registry.get("lettuce.tuning.redirections").tag("type", "ask").functionCounter()).isNotNull();
			assertThat(registry.get("lettuce.tuning.pool.active").gauge().value()).isZero();
			assertThat(registry.get("lettuce.tuning.pool.max").gauge()).isNotNull();
			assertThat(registry.get("lettuce.tuning.event.loop.blocked").functionCounter().count()).isZero();
			assertThat(registry.get("lettuce.tuning.event.loops.blocked").gauge().value()).isZero();
			assertThat(registry.get("lettuce.tuning.process.pauses").functionCounter().count()).isZero();
		});
	}

	@Test
	void blockedLoopMetersGoWithTheDetection() {
		this.withMeterRegistry.withPropertyValues("lettuce.tuning.resilience.blocked-loop-detection.enabled=false")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.find("lettuce.tuning.commands.waiting").gauge()).isNotNull();
				assertThat(registry.find("lettuce.tuning.event.loop.blocked").meters()).isEmpty();
				assertThat(registry.find("lettuce.tuning.event.loops.blocked").meters()).isEmpty();
			});
	}

	@Test
	void inFlightGaugesArePublishedPerMemberInEveryPolicy() {
		for (String policy : List.of("round-robin", "thread-affinity", "least-in-flight")) {
			this.withMeterRegistry
				.withPropertyValues("lettuce.tuning.connection.mode=multi", "lettuce.tuning.connection.multi.size=3",
						"lettuce.tuning.connection.multi.selection=" + policy)
				.run((context) -> {
					MeterRegistry registry = context.getBean(MeterRegistry.class);
					for (String api : List.of("imperative", "reactive")) {
						assertThat(registry.find("lettuce.tuning.connection.in-flight").tag("api", api).gauges())
							.as("%s gauges with %s", api, policy)
							.extracting((gauge) -> gauge.getId().getTag("member"))
							.containsExactlyInAnyOrder("0", "1", "2");
					}
					assertThat(registry.get("lettuce.tuning.connection.in-flight")
						.tags("mode", "multi", "api", "imperative", "member", "2")
						.gauge()
						.value()).isZero();
				});
		}
	}

	@Test
	void sharedModeHasOneInFlightGaugePerApiAndPooledModeNone() {
		this.withMeterRegistry.run((context) -> assertThat(
				context.getBean(MeterRegistry.class).find("lettuce.tuning.connection.in-flight").gauges())
			.extracting((gauge) -> gauge.getId().getTag("api") + "/" + gauge.getId().getTag("member"))
			.containsExactlyInAnyOrder("imperative/0", "reactive/0"));
		this.withMeterRegistry.withPropertyValues("lettuce.tuning.connection.mode=pooled")
			.run((context) -> assertThat(
					context.getBean(MeterRegistry.class).find("lettuce.tuning.connection.in-flight").gauges())
				.isEmpty());
	}

	@Test
	void stockNettyTimerHasAPendingGaugeButNoExpiredCounter() {
		this.withMeterRegistry.withPropertyValues("lettuce.tuning.timer.type=netty").run((context) -> {
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("lettuce.tuning.timer.pending").tag("type", "netty").gauge()).isNotNull();
			assertThat(registry.find("lettuce.tuning.timer.expired").meters()).isEmpty();
		});
	}

	@Test
	void withoutCommonsPool2ThereAreNoPoolMeters() {
		this.withMeterRegistry.withClassLoader(new FilteredClassLoader(GenericObjectPool.class)).run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(DedicatedPoolMetrics.class)
				.hasSingleBean(ConnectionMetrics.class);
		});
	}

	@Test
	void micrometerOptionsAreLettucesDefaults() {
		this.withMeterRegistry.run((context) -> {
			MicrometerOptions options = context.getBean(MicrometerOptions.class);
			assertThat(options.isHistogram()).isEqualTo(MicrometerOptions.DEFAULT_HISTOGRAM);
			assertThat(options.targetPercentiles()).containsExactly(MicrometerOptions.DEFAULT_TARGET_PERCENTILES);
			assertThat(options.localDistinction()).isEqualTo(MicrometerOptions.DEFAULT_LOCAL_DISTINCTION);
			assertThat(options.minLatency()).isEqualTo(MicrometerOptions.DEFAULT_MIN_LATENCY);
			assertThat(options.maxLatency()).isEqualTo(MicrometerOptions.DEFAULT_MAX_LATENCY);
		});
	}

	@Test
	void userMicrometerOptionsAndRecorderWin() {
		this.withMeterRegistry.withUserConfiguration(UserRecorderConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(CommandLatencyRecorder.class)
				.doesNotHaveBean("lettuceTuningCommandLatencyRecorder");
			assertThat(context.getBean(ClientResources.class).commandLatencyRecorder())
				.isSameAs(context.getBean("userRecorder"));
		});
		this.withMeterRegistry.withUserConfiguration(UserOptionsConfiguration.class).run((context) -> {
			assertThat(context).hasSingleBean(MicrometerOptions.class);
			assertThat(context.getBean(MicrometerOptions.class).localDistinction()).isTrue();
		});
	}

	@Test
	void userResourceCustomizersRunAfterOurs() {
		this.withMeterRegistry.withUserConfiguration(UserCustomizerConfiguration.class)
			.run((context) -> assertThat(context.getBean(ClientResources.class).commandLatencyRecorder().isEnabled())
				.isFalse());
	}

	@Test
	void springBootsLettuceObservationAloneTimesCommandsUnlessAskedOtherwise() {
		this.withMeterRegistry.withConfiguration(BOOT_OBSERVATION)
			.withPropertyValues("lettuce.tuning.metrics.fast-path.enabled=false")
			.run((context) -> {
				ClientResources resources = context.getBean(ClientResources.class);
				assertThat(resources.tracing()).isInstanceOfSatisfying(GuardedTracing.class,
						(guarded) -> assertThat(guarded.getDelegate()).isInstanceOf(MicrometerTracing.class));
				assertThat(context).doesNotHaveBean(MicrometerCommandLatencyRecorder.class);
				assertThat(resources.commandLatencyRecorder().isEnabled()).isFalse();
			});
	}

	@Test
	void theFastPathAloneTimesCommandsInPlaceOfSpringBootsObservation() {
		this.withMeterRegistry.withConfiguration(BOOT_OBSERVATION).run((context) -> {
			ClientResources resources = context.getBean(ClientResources.class);
			assertThat(resources.tracing().isEnabled()).isFalse();
			assertThat(CompositeNettyCustomizer.find(resources.nettyCustomizer(), CommandMeters.class)).isNotNull();
			assertThat(context).doesNotHaveBean(MicrometerCommandLatencyRecorder.class);
			assertThat(resources.commandLatencyRecorder().isEnabled()).isFalse();
		});
	}

	@Test
	void commandLatencyAskedForIsRecordedNextToSpringBootsObservation() {
		this.withMeterRegistry.withConfiguration(BOOT_OBSERVATION)
			.withPropertyValues("lettuce.tuning.metrics.command-latency.enabled=true",
					"lettuce.tuning.metrics.fast-path.enabled=false")
			.run((context) -> {
				ClientResources resources = context.getBean(ClientResources.class);
				assertThat(resources.tracing()).isInstanceOf(GuardedTracing.class);
				assertThat(resources.commandLatencyRecorder()).isInstanceOf(MicrometerCommandLatencyRecorder.class);
			});
	}

	@Test
	void commandLatencyIsRecordedWhenSpringBootsObservationIsSwitchedOff() {
		this.withMeterRegistry.withConfiguration(BOOT_OBSERVATION)
			.withPropertyValues("management.observations.enable.lettuce=false")
			.run((context) -> assertThat(context.getBean(ClientResources.class).commandLatencyRecorder())
				.isInstanceOf(MicrometerCommandLatencyRecorder.class));
	}

	@Test
	void commandLatencyIsRecordedWhenEveryObservationIsSwitchedOff() {
		this.withMeterRegistry.withConfiguration(BOOT_OBSERVATION)
			.withPropertyValues("management.observations.enable.all=false")
			.run((context) -> assertThat(context.getBean(ClientResources.class).commandLatencyRecorder())
				.isInstanceOf(MicrometerCommandLatencyRecorder.class));
	}

	@Test
	void lettucesOwnObservationSwitchWinsOverAll() {
		this.withMeterRegistry.withConfiguration(BOOT_OBSERVATION)
			.withPropertyValues("management.observations.enable.all=false",
					"management.observations.enable.lettuce=true")
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerCommandLatencyRecorder.class));
	}

	@Test
	void disabledTuningLeavesSpringBootsResourcesAlone() {
		this.withMeterRegistry.withPropertyValues("lettuce.tuning.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(CommandLatencyRecorderCustomizer.class)
				.doesNotHaveBean(MicrometerCommandLatencyRecorder.class);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class UserRecorderConfiguration {

		@Bean
		CommandLatencyRecorder userRecorder() {
			return new MicrometerCommandLatencyRecorder(new SimpleMeterRegistry(), MicrometerOptions.create());
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserOptionsConfiguration {

		@Bean
		MicrometerOptions userOptions() {
			return MicrometerOptions.builder().localDistinction(true).build();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserCustomizerConfiguration {

		@Bean
		ClientResourcesBuilderCustomizer userCustomizer() {
			return (builder) -> builder.commandLatencyRecorder(CommandLatencyRecorder.disabled());
		}

	}

}
