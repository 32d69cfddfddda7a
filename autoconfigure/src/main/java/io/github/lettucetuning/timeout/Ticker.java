package io.github.lettucetuning.timeout;

/**
 * Source of monotonic time for a {@link WheelTimer}, in nanoseconds with an arbitrary
 * origin (like {@link System#nanoTime()}). Only differences between two readings are
 * meaningful.
 * <p>
 * Production code uses {@link #system()}; tests inject a manually advanced implementation
 * so that timer behaviour can be verified without sleeping.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface Ticker {

	/**
	 * Return the current reading of this time source.
	 * @return the current time in nanoseconds since an arbitrary, fixed origin
	 */
	long nanoTime();

	/**
	 * Return the ticker backed by {@link System#nanoTime()}.
	 * @return the system ticker
	 */
	static Ticker system() {
		return SystemTicker.INSTANCE;
	}

}
