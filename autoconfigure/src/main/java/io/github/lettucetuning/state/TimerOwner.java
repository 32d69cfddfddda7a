package io.github.lettucetuning.state;

import java.util.Locale;

/**
 * Who created the timer that expires commands.
 *
 * @since 0.1.0
 */
public enum TimerOwner {

	/**
	 * lettuce-tuning created it and stops it.
	 */
	LETTUCE_TUNING,

	/**
	 * Lettuce created its stock timer.
	 */
	LETTUCE,

	/**
	 * The application supplied it.
	 */
	APPLICATION;

	String id() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
