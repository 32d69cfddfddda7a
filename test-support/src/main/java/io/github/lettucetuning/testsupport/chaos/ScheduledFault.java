package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.Locale;

/**
 * One fault of a {@link FaultSchedule}: what, when after the campaign's start, for how
 * long, and against which target (an index the injector maps onto its nodes or client
 * connections, modulo their number).
 *
 * @param index the fault's position in the schedule
 * @param kind the kind of fault
 * @param offset when it starts, after the campaign's start
 * @param duration how long it lasts (for faults healed by the injector)
 * @param target which node or connection it hits
 */
public record ScheduledFault(int index, FaultKind kind, Duration offset, Duration duration, int target) {

	/**
	 * Return when the fault ends, after the campaign's start.
	 * @return the offset plus the duration
	 */
	public Duration end() {
		return this.offset.plus(this.duration);
	}

	/**
	 * Return whether this fault is still under way when another starts.
	 * @param later a fault that starts no earlier than this one
	 * @return whether they overlap
	 */
	public boolean overlaps(ScheduledFault later) {
		return later.offset.compareTo(end()) < 0;
	}

	@Override
	public String toString() {
		return String.format(Locale.ROOT, "#%d %-17s at %6d ms for %5d ms target %d", this.index, this.kind,
				this.offset.toMillis(), this.duration.toMillis(), this.target);
	}

}
