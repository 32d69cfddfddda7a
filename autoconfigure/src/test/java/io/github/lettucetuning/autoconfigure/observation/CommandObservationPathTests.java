package io.github.lettucetuning.autoconfigure.observation;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.metrics.LettuceTuningMetricsAutoConfiguration;
import io.github.lettucetuning.observation.CommandMeters;
import io.github.lettucetuning.observation.CommandObservationPath;
import io.github.lettucetuning.observation.CommandObservationPath.Path;
import io.github.lettucetuning.observation.GuardedTracing;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationPredicate;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

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
	void bootObservationWhenTheApplicationAsksForTheLongTaskTimer() {
		this.contextRunner.withPropertyValues("management.metrics.enable.lettuce.active=true")
			.run((context) -> assertBootObservation(context, "lettuce.active"));
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

}
