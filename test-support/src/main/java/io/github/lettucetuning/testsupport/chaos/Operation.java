package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * One operation as the {@link Journal} recorded it.
 *
 * @param id its number in the journal
 * @param worker the worker that issued it
 * @param kind what it was
 * @param key the key it addressed
 * @param value the value it sent, if any
 * @param startNanos when it was issued ({@link System#nanoTime()})
 * @param endNanos when it ended, or {@code 0} if it has not ended
 * @param outcome how it ended, or {@code null} if it has not ended
 * @param error the failure, as its class name and message, if it failed
 * @param reply the value it returned, if any
 */
public record Operation(long id, String worker, OpKind kind, String key, @Nullable String value, long startNanos,
		long endNanos, @Nullable Outcome outcome, @Nullable String error, @Nullable String reply) {

	/**
	 * Return whether the operation has ended.
	 * @return whether its caller got an outcome
	 */
	public boolean ended() {
		return this.outcome != null;
	}

	/**
	 * Return how long its caller waited, or has waited so far.
	 * @param nowNanos the time to measure an operation that has not ended against
	 * @return the wait
	 */
	public Duration waited(long nowNanos) {
		return Duration.ofNanos((ended() ? this.endNanos : nowNanos) - this.startNanos);
	}

	@Override
	public String toString() {
		return "op " + this.id + " " + this.kind + " " + this.key + ((this.value != null) ? " value=" + this.value : "")
				+ " by " + this.worker + ": " + ((this.outcome != null) ? this.outcome : "PENDING")
				+ ((this.reply != null) ? " reply=" + this.reply : "")
				+ ((this.error != null) ? " error=" + this.error : "");
	}

}
