package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;

/**
 * What became of one scheduled fault: when it was injected and healed, or why it was
 * skipped.
 *
 * @param fault the scheduled fault
 * @param injectedNanos when it was injected ({@link System#nanoTime()})
 * @param healedNanos when it was healed, or when an instant fault was done; on a Sentinel
 * or cluster topology, when the topology was usable again after it (reconciled)
 * @param skipped whether it could not be injected
 * @param losesWrites whether this injection could wipe acknowledged writes by a restart
 * without persistence: a kill or shutdown of a node that was a master when hit (failover
 * losses are told apart by replication tracking, see {@link Invariants.Replication})
 * @param note what was hit, or why it was skipped
 */
public record InjectedFault(ScheduledFault fault, long injectedNanos, long healedNanos, boolean skipped,
		boolean losesWrites, String note) {

	/**
	 * Return how long the fault lasted, from injection to heal.
	 * @return its span
	 */
	public Duration span() {
		return Duration.ofNanos(this.healedNanos - this.injectedNanos);
	}

	@Override
	public String toString() {
		return this.fault + (this.skipped ? " SKIPPED: " : ": ") + this.note
				+ (this.losesWrites ? " [loses writes]" : "");
	}

}
