package io.github.lettucetuning.state;

import io.github.lettucetuning.timeout.WheelTimer;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

/**
 * The timer that expires the client's commands at one moment: what kind it is and the
 * timeouts it counts.
 *
 * @param type {@code wheel} for lettuce-tuning's {@link WheelTimer}, {@code netty} for
 * Netty's {@link HashedWheelTimer}, or {@code null} for another timer, which tells no
 * counts
 * @param pending timeouts scheduled and neither expired nor cancelled, when known
 * @param expired timeouts that fired since startup, when known
 * @since 0.1.0
 */
public record TimerSnapshot(@Nullable String type, @Nullable Long pending, @Nullable Long expired) {

	/**
	 * Take a snapshot of a timer.
	 * @param timer the timer of the client resources
	 * @return the snapshot
	 */
	public static TimerSnapshot of(Timer timer) {
		if (timer instanceof WheelTimer wheel) {
			return new TimerSnapshot("wheel", wheel.pendingTimeouts(), wheel.expiredTimeouts());
		}
		if (timer instanceof HashedWheelTimer hashed) {
			return new TimerSnapshot("netty", hashed.pendingTimeouts(), null);
		}
		return new TimerSnapshot(null, null, null);
	}

}
