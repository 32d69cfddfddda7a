package io.github.lettucetuning.autoconfigure.state;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.autoconfigure.timeout.CommandExpiryTimer;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.credentials.CredentialsTracker;
import io.github.lettucetuning.eventloop.EventLoopWatchdog;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.nearcache.NearCaches;
import io.github.lettucetuning.observation.CommandObservationPath;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.socket.EffectiveSocketSettings;
import io.github.lettucetuning.state.ClientEventRecorder;
import io.github.lettucetuning.state.ClientStateReader;
import io.github.lettucetuning.state.TimerOwner;
import io.lettuce.core.resource.ClientResources;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * Publishes the {@link ClientStateReader} that the health indicator, the meters and the
 * {@code lettuce} endpoint share: the one place that is handed the parts of the running
 * client. Whatever of them is absent (the outage guard, the watchdog, the credentials
 * tracker, the client event recorder, the near cache, ...) is left out of the state.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class ClientStateConfiguration {

	private static final boolean HEALTH_PRESENT = ClassUtils.isPresent(
			"org.springframework.boot.health.contributor.AbstractHealthIndicator",
			ClientStateConfiguration.class.getClassLoader());

	@Bean
	@ConditionalOnMissingBean
	ClientStateReader lettuceTuningClientState(LettuceTuningConnectionFactory connectionFactory,
			ClientResources clientResources, ObjectProvider<OutageGuard> outageGuard,
			ObjectProvider<EventLoopWatchdog> watchdog, ObjectProvider<CommandExpiryTimer> expiryTimer,
			ObjectProvider<CredentialsTracker> credentials, ObjectProvider<EffectiveSocketSettings> socketSettings,
			ObjectProvider<ClientEventRecorder> recorder, ObjectProvider<CommandObservationPath> commandMeters,
			ObjectProvider<NearCaches> nearCaches, ListableBeanFactory beanFactory) {
		ClientStateReader.Builder builder = ClientStateReader.builder(connectionFactory)
			.resources(clientResources)
			.outageGuard(outageGuard.getIfUnique())
			.watchdog(watchdog.getIfUnique())
			.timerOwner(timerOwner(clientResources.timer(), expiryTimer.getIfAvailable()))
			.credentials(credentials.getIfAvailable())
			.socketSettings(socketSettings.getIfAvailable())
			.events(recorder.getIfAvailable())
			.commandMeters(commandMeters.getIfAvailable())
			.nearCaches(nearCaches.getIfUnique());
		if (HEALTH_PRESENT) {
			HealthIndicators.apply(builder, beanFactory);
		}
		return builder.build();
	}

	static TimerOwner timerOwner(Timer timer, @Nullable CommandExpiryTimer expiryTimer) {
		if (expiryTimer != null && timer == expiryTimer.currentTimer()) {
			return expiryTimer.isOwned() ? TimerOwner.LETTUCE_TUNING : TimerOwner.APPLICATION;
		}
		return (timer instanceof HashedWheelTimer) ? TimerOwner.LETTUCE : TimerOwner.APPLICATION;
	}

	// Only loaded when Spring Boot's health is on the classpath. The indicator reads the
	// reader it is given here, so it is looked up when the state is read, not now.
	private static final class HealthIndicators {

		private static final String[] REDIS_HEALTH_BEANS = { "redisHealthContributor", "redisHealthIndicator" };

		static void apply(ClientStateReader.Builder builder, ListableBeanFactory beanFactory) {
			ObjectProvider<LettuceHealthIndicator> indicator = beanFactory
				.getBeanProvider(LettuceHealthIndicator.class);
			builder.health(() -> health(indicator.getIfUnique(), beanFactory)).server(() -> {
				LettuceHealthIndicator unique = indicator.getIfUnique();
				return (unique != null) ? unique.serverIdentity() : null;
			});
		}

		// Spring Boot's own redis health beans, or an application's, wait out the
		// command timeout when Redis stops answering.
		private static EffectiveConfiguration.Health health(@Nullable LettuceHealthIndicator indicator,
				ListableBeanFactory beanFactory) {
			boolean unbounded = false;
			for (String name : REDIS_HEALTH_BEANS) {
				unbounded = unbounded || (beanFactory.containsBean(name)
						&& !beanFactory.isTypeMatch(name, LettuceHealthIndicator.class));
			}
			return new EffectiveConfiguration.Health(indicator != null,
					(indicator != null) ? indicator.getTimeout() : null, unbounded);
		}

	}

}
