package io.github.lettucetuning.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.github.lettucetuning.timeout.WheelTimerOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * Rejects {@link LettuceTuningProperties} that cannot work, before anything connects.
 * Each failure is Spring Boot's {@link InvalidConfigurationPropertyValueException}, whose
 * failure analysis prints the property, the value and the reason; the reason ends with
 * the fix.
 */
final class LettuceTuningPropertiesValidator {

	private static final String PREFIX = "lettuce.tuning.";

	// A day: longer is no longer a bound on how stale an address may be.
	private static final Duration MAX_DNS_TTL = Duration.ofDays(1);

	private LettuceTuningPropertiesValidator() {
	}

	static void validate(LettuceTuningProperties properties) {
		validateConnection(properties.getConnection());
		validateTimer(properties.getTimer());
		validateSocket(properties.getSocket());
		validateDns(properties.getDns());
		validateResilience(properties.getResilience());
		validateNearCache(properties.getNearCache());
		requirePositive("health.timeout", properties.getHealth().getTimeout(),
				"so that the health check answers; 2s is the default");
		if (properties.getCredentials().getProvider().isBlank()) {
			throw invalid("credentials.provider", properties.getCredentials().getProvider(),
					"it must not be blank; set 'auto' (the default), 'none' or the name of a "
							+ "RedisCredentialsProvider or RedisCredentialsProviderFactory bean");
		}
	}

	private static void validateConnection(LettuceTuningProperties.Connection connection) {
		requireAtLeastOne("connection.multi.size", connection.getMulti().getSize());
		requireAtLeastOne("connection.io-threads", connection.getIoThreads());
		requireAtLeastOne("connection.computation-threads", connection.getComputationThreads());
	}

	private static void validateTimer(LettuceTuningProperties.Timer timer) {
		WheelTimerOptions.Builder builder = WheelTimerOptions.builder();
		apply("timer.tick", timer.getTick(), builder::tickDuration, "10ms is the default");
		Integer wheelSize = timer.getWheelSize();
		if (wheelSize != null) {
			apply("timer.wheel-size", wheelSize, builder::wheelSize, "remove it to use the default");
			apply("timer.wheel-size", wheelSize, (size) -> builder.build(), "remove it to use the default");
		}
		Long maxPending = timer.getMaxPending();
		if (maxPending != null) {
			apply("timer.max-pending", maxPending, builder::maxPendingTimeouts,
					"set a positive bound, or remove it to use the default");
		}
	}

	private static void validateSocket(LettuceTuningProperties.Socket socket) {
		Duration tcpUserTimeout = socket.getTcpUserTimeout().getDuration();
		if (tcpUserTimeout != null) {
			requirePositive("socket.tcp-user-timeout.duration", tcpUserTimeout,
					"or remove it to use the keep-alive's idle + interval x count");
			if (tcpUserTimeout.toMillis() > Integer.MAX_VALUE) {
				throw invalid("socket.tcp-user-timeout.duration", display(tcpUserTimeout),
						"the socket option holds at most " + Integer.MAX_VALUE + "ms; set a shorter duration");
			}
		}
	}

	private static void validateDns(LettuceTuningProperties.Dns dns) {
		Duration maxTtl = dns.getMaxTtl();
		if (maxTtl.isNegative() || maxTtl.toSeconds() > MAX_DNS_TTL.toSeconds() || maxTtl.getNano() != 0) {
			throw invalid("dns.max-ttl", display(maxTtl), "it must be a whole number of seconds from 0s to "
					+ MAX_DNS_TTL.toSeconds() + "s; set how long a resolved address may be reused, 5s is the default");
		}
	}

	private static void validateResilience(LettuceTuningProperties.Resilience resilience) {
		Duration grace = resilience.getFailFast().getGrace();
		if (grace.isNegative()) {
			throw invalid("resilience.fail-fast.grace", display(grace), "it must not be negative; set it to how "
					+ "long a connection may be down before its commands fail, 1s is the default");
		}
		requirePositive("resilience.stall-detection.timeout", resilience.getStallDetection().getTimeout(),
				"2s is the default, or switch stall detection off with "
						+ "lettuce.tuning.resilience.stall-detection.enabled=false");
		requirePositive("resilience.blocked-loop-detection.threshold",
				resilience.getBlockedLoopDetection().getThreshold(),
				"500ms is the default, or switch the detection off "
						+ "with lettuce.tuning.resilience.blocked-loop-detection.enabled=false");
		if (resilience.getRequestQueueSize() < 1) {
			throw invalid("resilience.request-queue-size", resilience.getRequestQueueSize(),
					"it must be at least 1; set it to the most commands one connection may hold, 100000 is the default");
		}
		requirePositive("resilience.reconnect.max-delay", resilience.getReconnect().getMaxDelay(), "1s is the default");
		requirePositive("resilience.role-change.min-interval", resilience.getRoleChange().getMinInterval(),
				"2s is the default, or switch following a demoted primary off with "
						+ "lettuce.tuning.resilience.role-change.enabled=false");
	}

	private static void validateNearCache(LettuceTuningProperties.NearCache nearCache) {
		List<String> caches = nearCache.getCaches();
		for (String cache : caches) {
			if (cache == null || cache.isBlank()) {
				throw invalid("near-cache.caches", caches,
						"a cache name must not be blank; list the names of the caches to keep in memory, or '*' for all");
			}
		}
		if (caches.contains("*") && caches.size() > 1) {
			throw invalid("near-cache.caches", caches,
					"'*' already means every cache; set '*' alone, or list the cache names without it");
		}
		if (nearCache.getMaximumSize() < 1) {
			throw invalid("near-cache.maximum-size", nearCache.getMaximumSize(),
					"it must be at least 1; set the most entries to keep in memory, 10000 is the default");
		}
		DataSize maximumBytes = nearCache.getMaximumBytes();
		if (maximumBytes != null && maximumBytes.toBytes() < 1) {
			throw invalid("near-cache.maximum-bytes", maximumBytes, "it must be at least 1B; set the most bytes of "
					+ "keys and values to keep in memory (e.g. 64MB), or remove it to bound by entries");
		}
	}

	private static void requirePositive(String property, Duration value, String hint) {
		if (value.isNegative() || value.isZero()) {
			throw invalid(property, display(value), "it must be positive; set a positive duration, " + hint);
		}
	}

	private static void requireAtLeastOne(String property, @Nullable Integer value) {
		if (value != null && value < 1) {
			throw invalid(property, value,
					"it must be at least 1; set it to 1 or more, or remove it to use the default");
		}
	}

	// WheelTimerOptions checks its arguments eagerly; its message becomes the reason.
	private static <T> void apply(String property, T value, Consumer<T> setter, String hint) {
		try {
			setter.accept(value);
		}
		catch (IllegalArgumentException ex) {
			throw invalid(property, (value instanceof Duration duration) ? display(duration) : value,
					ex.getMessage() + "; " + hint);
		}
	}

	private static InvalidConfigurationPropertyValueException invalid(String property, Object value, String reason) {
		return new InvalidConfigurationPropertyValueException(PREFIX + property, value, reason);
	}

	// As an application would write it (10ms), not as Duration prints it (PT0.01S).
	private static String display(Duration duration) {
		return duration.toMillis() + "ms";
	}

}
