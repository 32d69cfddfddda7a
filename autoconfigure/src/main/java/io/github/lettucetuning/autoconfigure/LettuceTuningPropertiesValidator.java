package io.github.lettucetuning.autoconfigure;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import org.jspecify.annotations.Nullable;

/**
 * Rejects {@link LettuceTuningProperties} that cannot work, before anything connects.
 *
 * @author lettuce-tuning
 */
final class LettuceTuningPropertiesValidator {

	// Linux limits for TCP_KEEPIDLE / TCP_KEEPINTVL and TCP_KEEPCNT
	private static final Duration MAX_KEEP_ALIVE_TIME = Duration.ofSeconds(32767);

	private static final int MAX_KEEP_ALIVE_COUNT = 127;

	private LettuceTuningPropertiesValidator() {
	}

	static void validate(LettuceTuningProperties properties) {
		validateConnection(properties.getConnection());
		requirePositive("lettuce.tuning.pool.max-wait", properties.getPool().getMaxWait(),
				"Set it to how long a caller may wait for a dedicated connection, e.g. 2s");
		requireAtLeastOne("lettuce.tuning.resources.io-threads", properties.getResources().getIoThreads());
		requireAtLeastOne("lettuce.tuning.resources.computation-threads",
				properties.getResources().getComputationThreads());
		validateTimer(properties.getTimer());
		validateCluster(properties.getCluster());
		validateSocket(properties.getSocket());
		validateResilience(properties.getResilience());
	}

	private static void validateResilience(LettuceTuningProperties.Resilience resilience) {
		Duration grace = resilience.getFailFast().getGrace();
		if (grace.isNegative()) {
			throw new InvalidTuningPropertyException("lettuce.tuning.resilience.fail-fast.grace", grace,
					"it must not be negative",
					"Set it to how long a connection may be down before its commands fail, e.g. 1s.");
		}
		requirePositiveDuration("lettuce.tuning.resilience.stall-detection.timeout",
				resilience.getStallDetection().getTimeout(),
				"2s is the default, or switch stall detection off with lettuce.tuning.resilience.stall-detection.enabled=false");
		if (resilience.getRequestQueueSize() < 1) {
			throw new InvalidTuningPropertyException("lettuce.tuning.resilience.request-queue-size",
					resilience.getRequestQueueSize(), "it must be at least 1",
					"Set it to the most commands one connection may hold, e.g. 100000.");
		}
	}

	private static void validateConnection(LettuceTuningProperties.Connection connection) {
		requireAtLeastOne("lettuce.tuning.connection.multi.size", connection.getMulti().getSize());
	}

	private static void validateTimer(LettuceTuningProperties.Timer timer) {
		if (timer.getTick().compareTo(Duration.ofMillis(1)) < 0) {
			throw new InvalidTuningPropertyException("lettuce.tuning.timer.tick", timer.getTick(),
					"the tick must be at least 1ms",
					"Set lettuce.tuning.timer.tick to 1ms or more; 10ms is the default.");
		}
		requireAtLeastOne("lettuce.tuning.timer.wheel-size", timer.getWheelSize());
		Long maxPending = timer.getMaxPending();
		if (maxPending != null && maxPending < 1) {
			throw new InvalidTuningPropertyException("lettuce.tuning.timer.max-pending", maxPending,
					"it must be at least 1", "Set lettuce.tuning.timer.max-pending to a positive bound, "
							+ "or remove it to use the default.");
		}
	}

	private static void validateCluster(LettuceTuningProperties.Cluster cluster) {
		if (cluster.getMaxRedirects() < 0) {
			throw new InvalidTuningPropertyException("lettuce.tuning.cluster.max-redirects", cluster.getMaxRedirects(),
					"it must not be negative", "Set lettuce.tuning.cluster.max-redirects to 0 or more; 5 is the default.");
		}
		LettuceTuningProperties.Refresh refresh = cluster.getRefresh();
		Duration period = refresh.getPeriod();
		if (period != null) {
			requirePositiveDuration("lettuce.tuning.cluster.refresh.period", period, "30s is the default");
		}
		requirePositiveDuration("lettuce.tuning.cluster.refresh.adaptive-triggers-timeout",
				refresh.getAdaptiveTriggersTimeout(), "5s is the default");
		requireAtLeastOne("lettuce.tuning.cluster.refresh.reconnect-attempts", refresh.getReconnectAttempts());
	}

	private static void validateSocket(LettuceTuningProperties.Socket socket) {
		LettuceTuningProperties.KeepAlive keepAlive = socket.getKeepAlive();
		requireWholeSeconds("lettuce.tuning.socket.keep-alive.idle", keepAlive.getIdle());
		requireWholeSeconds("lettuce.tuning.socket.keep-alive.interval", keepAlive.getInterval());
		requireAtLeastOne("lettuce.tuning.socket.keep-alive.count", keepAlive.getCount());
		if (keepAlive.getCount() > MAX_KEEP_ALIVE_COUNT) {
			throw new InvalidTuningPropertyException("lettuce.tuning.socket.keep-alive.count", keepAlive.getCount(),
					"the kernel accepts at most " + MAX_KEEP_ALIVE_COUNT + " probes",
					"Set lettuce.tuning.socket.keep-alive.count between 1 and " + MAX_KEEP_ALIVE_COUNT + "; 3 is the default.");
		}
		requireAtLeastOne("lettuce.tuning.socket.flush-consolidation.max-flushes",
				socket.getFlushConsolidation().getMaxFlushes());
		requirePositiveDuration("lettuce.tuning.socket.reconnect.max-delay", socket.getReconnect().getMaxDelay(),
				"1s is the default");
		Duration tcpUserTimeout = socket.getTcpUserTimeout().getDuration();
		if (tcpUserTimeout != null) {
			requirePositiveDuration("lettuce.tuning.socket.tcp-user-timeout.duration", tcpUserTimeout,
					"or remove it to use keep-alive idle + interval x count");
			if (tcpUserTimeout.toMillis() > Integer.MAX_VALUE) {
				throw new InvalidTuningPropertyException("lettuce.tuning.socket.tcp-user-timeout.duration", tcpUserTimeout,
						"the socket option holds at most " + Integer.MAX_VALUE + "ms",
						"Set lettuce.tuning.socket.tcp-user-timeout.duration to a shorter duration.");
			}
		}
	}

	private static void requirePositiveDuration(String property, Duration value, String hint) {
		if (value.isNegative() || value.isZero()) {
			throw new InvalidTuningPropertyException(property, value, "it must be positive",
					"Set " + property + " to a positive duration; " + hint + ".");
		}
	}

	// The kernel takes keep-alive times in whole seconds; Lettuce would silently truncate.
	private static void requireWholeSeconds(String property, Duration value) {
		if (value.compareTo(Duration.ofSeconds(1)) < 0 || value.compareTo(MAX_KEEP_ALIVE_TIME) > 0
				|| value.toMillis() % 1000 != 0) {
			throw new InvalidTuningPropertyException(property, value,
					"TCP keep-alive times are whole seconds, from 1s to " + MAX_KEEP_ALIVE_TIME.toSeconds() + "s",
					"Set " + property + " to a whole number of seconds, e.g. 5s.");
		}
	}

	private static void requirePositive(String property, @Nullable Duration value, String action) {
		if (value != null && (value.isNegative() || value.isZero())) {
			throw new InvalidTuningPropertyException(property, value, "it must be positive so that no caller "
					+ "waits forever", "Set " + property + " to a positive duration. " + action + ".");
		}
	}

	private static void requireAtLeastOne(String property, @Nullable Integer value) {
		if (value != null && value < 1) {
			throw new InvalidTuningPropertyException(property, value, "it must be at least 1",
					"Set " + property + " to 1 or more, or remove it to use the default.");
		}
	}

}
