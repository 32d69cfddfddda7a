package io.github.lettucetuning.health;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * Logs the {@code redis} health's changes of state, not its every check: a probe that
 * polls every few hundred milliseconds would otherwise log dozens of stack traces per
 * outage.
 */
final class HealthTransitions {

	private static final long UP = -1;

	private final Log logger;

	// When the health went down, or UP.
	private final AtomicLong downSince = new AtomicLong(UP);

	HealthTransitions(Log logger) {
		this.logger = logger;
	}

	void up() {
		long since = this.downSince.getAndSet(UP);
		if (since != UP && this.logger.isInfoEnabled()) {
			this.logger.info("Redis health is UP again after " + Duration.ofNanos(System.nanoTime() - since).toMillis()
					+ "ms DOWN");
		}
	}

	void down(String cause, @Nullable Throwable failure) {
		if (!this.downSince.compareAndSet(UP, System.nanoTime())) {
			return;
		}
		if (this.logger.isWarnEnabled()) {
			this.logger.warn("Redis health is DOWN: " + cause.lines().findFirst().orElse(cause)
					+ ((failure != null) ? " (stack trace at DEBUG)" : ""));
		}
		if (failure != null && this.logger.isDebugEnabled()) {
			this.logger.debug("Redis health check failed", failure);
		}
	}

}
