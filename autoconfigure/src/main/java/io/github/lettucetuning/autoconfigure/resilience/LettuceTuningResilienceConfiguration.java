package io.github.lettucetuning.autoconfigure.resilience;

import io.github.lettucetuning.autoconfigure.CustomizerOrder;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.socket.NettyCustomizerContribution;
import io.github.lettucetuning.credentials.CredentialsTracker;
import io.github.lettucetuning.eventloop.EventLoopThreadFactoryProvider;
import io.github.lettucetuning.eventloop.EventLoopWatchdog;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.resilience.OutageOptions;
import io.github.lettucetuning.resilience.RoleChangeGuard;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * Bounds what a Redis outage costs callers: an {@link OutageGuard} on every connection
 * (fail fast after a grace, stall detection) and a bounded request queue. Guards the
 * event loops against the application: synchronous calls made on them fail at once, and a
 * blocked loop is detected, named, and not taken for a Redis stall.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class LettuceTuningResilienceConfiguration {

	@Bean
	OutageGuard lettuceTuningOutageGuard(LettuceTuningProperties properties, ObjectProvider<EventLoopWatchdog> watchdog,
			ObjectProvider<CredentialsTracker> credentials, ObjectProvider<DataRedisProperties> redis) {
		LettuceTuningProperties.Resilience resilience = properties.getResilience();
		OutageGuard guard = new OutageGuard(
				new OutageOptions(resilience.getFailFast().isEnabled(), resilience.getFailFast().getGrace(),
						resilience.getStallDetection().isEnabled(), resilience.getStallDetection().getTimeout()),
				watchdog.getIfAvailable());
		credentials.ifAvailable((tracker) -> guard.credentialsUser(tracker::user));
		redis.ifAvailable((redisProperties) -> guard.sslBundle(sslBundle(redisProperties.getSsl())));
		return guard;
	}

	// The bundle named for Spring Boot's connection: a failed TLS handshake names it.
	private static @Nullable String sslBundle(DataRedisProperties.Ssl ssl) {
		String bundle = ssl.getBundle();
		return (ssl.isEnabled() && bundle != null && !bundle.isBlank()) ? bundle : null;
	}

	// The guard's handler also refuses a synchronous call's command on the loop that
	// would
	// have to read its reply, so the blocking-call guard needs it too.
	@Bean
	NettyCustomizerContribution lettuceTuningOutageGuardContribution(OutageGuard guard,
			LettuceTuningProperties properties) {
		OutageOptions options = guard.options();
		boolean applies = options.failFast() || options.stallDetection() || guard.watchdog() != null
				|| properties.getResilience().getBlockingCallGuard().isEnabled();
		@Nullable OutageGuard applied = applies ? guard : null;
		return (tracing) -> applied;
	}

	// Installed by the connection configuration, which knows whether the connections
	// write to one server.
	@Bean
	@ConditionalOnBooleanProperty(name = "lettuce.tuning.resilience.role-change.enabled", matchIfMissing = true)
	RoleChangeGuard lettuceTuningRoleChangeGuard(LettuceTuningProperties properties) {
		return new RoleChangeGuard(properties.getResilience().getRoleChange().getMinInterval());
	}

	// A timer of its own, so that its checks stay out of the command-expiry timer's
	// counts
	// and run whichever timer expires commands.
	@Bean(destroyMethod = "close")
	@ConditionalOnBooleanProperty(name = "lettuce.tuning.resilience.blocked-loop-detection.enabled",
			matchIfMissing = true)
	EventLoopWatchdog lettuceTuningEventLoopWatchdog(LettuceTuningProperties properties) {
		return new EventLoopWatchdog(properties.getResilience().getBlockedLoopDetection().getThreshold());
	}

	@Bean
	@Order(CustomizerOrder.LETTUCE_TUNING)
	@ConditionalOnBooleanProperty(name = "lettuce.tuning.resilience.blocking-call-guard.enabled", matchIfMissing = true)
	ClientResourcesBuilderCustomizer lettuceTuningEventLoopThreadsCustomizer() {
		return (builder) -> builder.threadFactoryProvider(new EventLoopThreadFactoryProvider());
	}

	@Bean
	@Order(CustomizerOrder.LETTUCE_TUNING)
	LettuceClientOptionsBuilderCustomizer lettuceTuningRequestQueueCustomizer(LettuceTuningProperties properties) {
		int requestQueueSize = properties.getResilience().getRequestQueueSize();
		return (builder) -> builder.requestQueueSize(requestQueueSize);
	}

}
