package io.github.lettucetuning.autoconfigure.observation;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.metrics.LettuceTuningMetricsAutoConfiguration;
import io.github.lettucetuning.observation.CommandMeters;
import io.github.lettucetuning.observation.CommandObservationPath;
import io.github.lettucetuning.observation.CommandObservationPath.Path;
import io.github.lettucetuning.observation.GuardedTracing;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.tracing.MicrometerTracing;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationPredicate;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which path records the {@code lettuce} command meters: the fast path only where nothing
 * but Spring Boot's meter handler would see Lettuce's observations.
 */
class CommandObservationPathTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class, MetricsAutoConfiguration.class,
				SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
				LettuceObservationAutoConfiguration.class, LettuceTuningAutoConfiguration.class,
				LettuceTuningMetricsAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@Test
	void fastPathWhenOnlyBootsMeterHandlerWouldSeeObservations() {
		this.contextRunner.run((context) -> {
			assertThat(path(context).path()).isEqualTo(Path.FAST_PATH);
			ClientResources resources = context.getBean(ClientResources.class);
			assertThat(resources.tracing().isEnabled()).isFalse();
			assertThat(CompositeNettyCustomizer.find(resources.nettyCustomizer(), CommandMeters.class)).isNotNull();
		});
	}

	@Test
	void bootObservationWhenFastPathIsSwitchedOff() {
		this.contextRunner.withPropertyValues("lettuce.tuning.metrics.fast-path.enabled=false")
			.run((context) -> assertBootObservation(context, "lettuce.tuning.metrics.fast-path.enabled is false"));
	}

	@Test
	void fastPathWhenTheApplicationAsksForTheLongTaskTimer() {
		this.contextRunner.withPropertyValues("management.metrics.enable.lettuce.active=true")
			.run((context) -> assertThat(path(context).reason()).contains("'lettuce.active' long-task timer"));
	}

	@Test
	void bootObservationWhenAnApplicationHandlerWouldSeeObservations() {
		this.contextRunner.withBean("auditHandler", AuditHandler.class, AuditHandler::new)
			.run((context) -> assertBootObservation(context, "ObservationHandler 'auditHandler'"));
	}

	@Test
	void bootObservationWhenAnApplicationPredicateWouldSeeObservations() {
		this.contextRunner.withBean("skipHealth", ObservationPredicate.class, () -> (name, context) -> true)
			.run((context) -> assertBootObservation(context, "ObservationPredicate 'skipHealth'"));
	}

	@Test
	void bootObservationWhenTheObservationIsSwitchedOff() {
		this.contextRunner.withPropertyValues("management.observations.enable.lettuce=false")
			.run((context) -> assertBootObservation(context, "management.observations.enable"));
	}

	@Test
	void fastPathWhenBootsMeterHandlerLeavesOutTheLongTaskTimer() {
		this.contextRunner.withPropertyValues("management.metrics.observations.ignored-meters=long-task-timer")
			.run((context) -> assertThat(path(context).path()).isEqualTo(Path.FAST_PATH));
	}

	@Test
	void noPathWithoutAnObservationRegistry() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LettuceObservationAutoConfiguration.class,
					LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.run((context) -> {
				assertThat(path(context).path()).isEqualTo(Path.NONE);
				assertThat(context.getBean(ClientResources.class).tracing().isEnabled()).isFalse();
			});
	}

	@Test
	void fastPathStandsAsideWhenTheApplicationSetsATracing() {
		this.contextRunner.withUserConfiguration(ApplicationTracingConfiguration.class).run((context) -> {
			CommandObservationPath decided = path(context);
			assertThat(decided.path()).isEqualTo(Path.FAST_PATH);
			ClientResources resources = context.getBean(ClientResources.class);
			assertThat(resources.tracing()).isInstanceOf(MicrometerTracing.class);
			assertThat(CompositeNettyCustomizer.find(resources.nettyCustomizer(), CommandMeters.class)).isNull();
			CommandObservationPath inUse = decided.inUse(resources);
			assertThat(inUse.path()).isEqualTo(Path.APPLICATION_TRACING);
			assertThat(inUse.reason()).contains(MicrometerTracing.class.getName()).contains("stands aside");
		});
	}

	@Test
	void pathInUseIsTheDecisionWhenTheResourcesCarryIt() {
		this.contextRunner.run((context) -> assertThat(path(context).inUse(context.getBean(ClientResources.class)))
			.isEqualTo(path(context)));
		this.contextRunner.withPropertyValues("lettuce.tuning.metrics.fast-path.enabled=false")
			.run((context) -> assertThat(path(context).inUse(context.getBean(ClientResources.class)))
				.isEqualTo(path(context)));
	}

	@Test
	void noPathInUseWhenTheApplicationBuildsItsOwnResources() {
		this.contextRunner.withUserConfiguration(ApplicationResourcesConfiguration.class).run((context) -> {
			assertThat(path(context).path()).isEqualTo(Path.FAST_PATH);
			CommandObservationPath inUse = path(context).inUse(context.getBean(ClientResources.class));
			assertThat(inUse.path()).isEqualTo(Path.NONE);
			assertThat(inUse.reason()).contains("its own ClientResources").contains("fast-path would apply");
		});
	}

	private static void assertBootObservation(AssertableApplicationContext context, String reason) {
		assertThat(path(context).path()).isEqualTo(Path.BOOT_OBSERVATION);
		assertThat(path(context).reason()).contains(reason);
		ClientResources resources = context.getBean(ClientResources.class);
		assertThat(resources.tracing()).isInstanceOf(GuardedTracing.class);
		assertThat(CompositeNettyCustomizer.find(resources.nettyCustomizer(), CommandMeters.class)).isNull();
	}

	private static CommandObservationPath path(AssertableApplicationContext context) {
		assertThat(context).hasNotFailed();
		return context.getBean(CommandObservationPath.class);
	}

	static class AuditHandler implements ObservationHandler<Observation.Context> {

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationTracingConfiguration {

		@Bean
		ClientResourcesBuilderCustomizer applicationTracing(ObservationRegistry observationRegistry) {
			return (builder) -> builder.tracing(new MicrometerTracing(observationRegistry, "redis"));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ApplicationResourcesConfiguration {

		@Bean(destroyMethod = "shutdown")
		ClientResources applicationResources() {
			return DefaultClientResources.create();
		}

	}

}
