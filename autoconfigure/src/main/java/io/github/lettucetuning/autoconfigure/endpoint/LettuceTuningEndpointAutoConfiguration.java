package io.github.lettucetuning.autoconfigure.endpoint;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.autoconfigure.ExplicitProperties;
import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.connection.PoolMaxWait;
import io.github.lettucetuning.autoconfigure.state.ClientEventRecorderConfiguration;
import io.github.lettucetuning.autoconfigure.timeout.CommandExpiryTimer;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.credentials.CredentialsTracker;
import io.github.lettucetuning.endpoint.EffectiveConfigurationReader;
import io.github.lettucetuning.endpoint.EffectiveConfigurationReader.TimerOwner;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.observation.CommandObservationPath;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.github.lettucetuning.socket.EffectiveSocketSettings;
import io.github.lettucetuning.state.ClientEventRecorder;
import io.github.lettucetuning.state.ServerIdentity;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * Auto-configuration of the read-only {@code lettuce} Actuator endpoint.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = LettuceTuningAutoConfiguration.class)
@ConditionalOnClass({ RedisClient.class, Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(LettuceTuningConnectionFactory.class)
@ConditionalOnAvailableEndpoint(LettuceEndpoint.class)
@EnableConfigurationProperties(LettuceTuningProperties.class)
@Import(ClientEventRecorderConfiguration.class)
public final class LettuceTuningEndpointAutoConfiguration {

	private static final String[] REDIS_HEALTH_BEANS = { "redisHealthContributor", "redisHealthIndicator" };

	@Bean
	@ConditionalOnMissingBean
	LettuceEndpoint lettuceEndpoint(LettuceTuningConnectionFactory connectionFactory, ClientResources clientResources,
			LettuceTuningProperties tuning, DataRedisProperties redis, ObjectProvider<CommandExpiryTimer> expiryTimer,
			ObjectProvider<EffectiveSocketSettings> socketSettings, ObjectProvider<ClientEventRecorder> recorder,
			ObjectProvider<LettuceHealthIndicator> healthIndicator, ObjectProvider<OutageGuard> outageGuard,
			ObjectProvider<CommandObservationPath> commandMeters, ObjectProvider<CredentialsTracker> credentials,
			ListableBeanFactory beanFactory, Environment environment) {
		OutageGuard guard = installed(outageGuard.getIfUnique(), clientResources);
		EffectiveConfigurationReader reader = new EffectiveConfigurationReader(connectionFactory, clientResources,
				timerOwner(clientResources.timer(), expiryTimer.getIfAvailable()), socketSettings.getIfAvailable(),
				pool(redis, tuning, ExplicitProperties.of(environment)),
				() -> health(healthIndicator.getIfUnique(), beanFactory), guard,
				inUse(commandMeters.getIfAvailable(), clientResources));
		return new LettuceEndpoint(connectionFactory, clientResources, reader, recorder.getIfAvailable(), guard,
				credentials.getIfAvailable(), () -> serverIdentity(healthIndicator.getIfUnique()));
	}

	private static @Nullable ServerIdentity serverIdentity(@Nullable LettuceHealthIndicator indicator) {
		return (indicator != null) ? indicator.serverIdentity() : null;
	}

	// The guard is on the connections only if the client resources carry it: not when
	// every option of it is off, nor when the application builds its own resources.
	private static @Nullable OutageGuard installed(@Nullable OutageGuard guard, ClientResources resources) {
		return (guard != null && CompositeNettyCustomizer.includes(resources.nettyCustomizer(), guard)) ? guard : null;
	}

	// Decided from bean definitions before the resources were built; what they carry
	// has the last word.
	private static @Nullable CommandObservationPath inUse(@Nullable CommandObservationPath decided,
			ClientResources resources) {
		return (decided != null) ? decided.inUse(resources) : null;
	}

	static TimerOwner timerOwner(Timer timer, @Nullable CommandExpiryTimer expiryTimer) {
		if (expiryTimer != null && timer == expiryTimer.currentTimer()) {
			return expiryTimer.isOwned() ? TimerOwner.LETTUCE_TUNING : TimerOwner.APPLICATION;
		}
		return (timer instanceof HashedWheelTimer) ? TimerOwner.LETTUCE : TimerOwner.APPLICATION;
	}

	static EffectiveConfiguration.Pool pool(DataRedisProperties redis, LettuceTuningProperties tuning,
			ExplicitProperties explicit) {
		DataRedisProperties.Pool pool = redis.getLettuce().getPool();
		return new EffectiveConfiguration.Pool(pool.getMaxActive(), pool.getMaxIdle(), pool.getMinIdle(),
				PoolMaxWait.of(redis, tuning.getConnection().getMode(), explicit));
	}

	private static EffectiveConfiguration.Health health(@Nullable LettuceHealthIndicator indicator,
			ListableBeanFactory beanFactory) {
		boolean unbounded = false;
		for (String name : REDIS_HEALTH_BEANS) {
			unbounded = unbounded
					|| (beanFactory.containsBean(name) && !beanFactory.isTypeMatch(name, LettuceHealthIndicator.class));
		}
		return new EffectiveConfiguration.Health(indicator != null, (indicator != null) ? indicator.getTimeout() : null,
				unbounded);
	}

}
