package io.github.lettucetuning.resilience;

import java.time.Duration;

/**
 * What the {@link OutageGuard} does, as immutable settings.
 *
 * @param failFast whether commands fail at once after the grace instead of queueing until
 * Redis answers again or the command timeout passes
 * @param grace how long a connection may be down before its commands fail fast
 * @param stallDetection whether a server that reads nothing while commands wait counts as
 * down
 * @param stallTimeout how long commands may wait with nothing read before the connection
 * counts as stalled
 * @since 0.1.0
 */
public record OutageOptions(boolean failFast, Duration grace, boolean stallDetection, Duration stallTimeout) {

	/**
	 * The default grace: long enough for a {@code CLUSTER FAILOVER}, a
	 * {@code CLIENT KILL} or a Sentinel switch, which reconnect within a few hundred
	 * milliseconds.
	 */
	public static final Duration DEFAULT_GRACE = Duration.ofSeconds(1);

	/**
	 * The default stall timeout.
	 */
	public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(2);

	/**
	 * Validate the settings.
	 */
	public OutageOptions {
		if (grace.isNegative()) {
			throw new IllegalArgumentException("grace must not be negative, was " + grace);
		}
		if (stallTimeout.isNegative() || stallTimeout.isZero()) {
			throw new IllegalArgumentException("stallTimeout must be positive, was " + stallTimeout);
		}
	}

	/**
	 * Return the defaults: fail fast after 1 s, stalls detected after 2 s.
	 * @return the default options
	 */
	public static OutageOptions defaults() {
		return new OutageOptions(true, DEFAULT_GRACE, true, DEFAULT_STALL_TIMEOUT);
	}

}
