package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;

/**
 * What became of one scheduled fault: when it was injected and healed, or why it was
 * skipped.
 *
 * @param fault the scheduled fault
 * @param injectedNanos when it was injected ({@link System#nanoTime()})
 * @param healedNanos when it was healed, or when an instant fault was done
 * @param skipped whether it could not be injected
 * @param note what was hit, or why it was skipped
 */
public record InjectedFault(ScheduledFault fault, long injectedNanos, long healedNanos, boolean skipped, String note) {

	/**
	 * Return how long the fault lasted, from injection to heal.
	 * @return its span
	 */
	public Duration span() {
		return Duration.ofNanos(this.healedNanos - this.injectedNanos);
	}

	@Override
	public String toString() {
		return this.fault + (this.skipped ? " SKIPPED: " : ": ") + this.note;
	}

}
