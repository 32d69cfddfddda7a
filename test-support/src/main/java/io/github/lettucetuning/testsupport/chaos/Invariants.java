package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * The invariants a campaign run must hold, checked after the run against the journal and
 * what the servers hold:
 * <ul>
 * <li><b>bounded-wait</b>: no caller waits longer than its bound, and every caller got an
 * outcome;</li>
 * <li><b>reply-belongs</b>: a read returns a value that was written to the key it read
 * (values carry their key and a sequence number, see {@link Values});</li>
 * <li><b>failed-write-not-applied</b>: a write whose caller got a fail-fast is never
 * seen, neither by a read nor on the server; one whose caller got a connection error is
 * not applied after the caller was told (a read that started afterwards saw an older
 * value, and the write is seen after that read), though Redis may have run it before the
 * connection broke; those, and writes that stalled, timed out or were cancelled, are
 * counted apart when seen;</li>
 * <li><b>acknowledged-write-present</b>: the last acknowledged write of each key is on
 * the server afterwards (or a later one), unless a fault that may lose writes healed
 * after it was acknowledged: those are reported as lost by the server;</li>
 * <li><b>traffic-back</b>: an operation issued after the last fault healed succeeds
 * within the recovery bound;</li>
 * <li><b>in-flight-zero</b> and <b>no-leak</b>: afterwards nothing is in flight, and no
 * client connection or thread is left.</li>
 * </ul>
 * The write checks assume one writer per key, issuing increasing sequence numbers.
 */
public final class Invariants {

	private final Bounds bounds;

	/**
	 * Create the checks.
	 * @param bounds the bounds to hold callers to
	 */
	public Invariants(Bounds bounds) {
		this.bounds = bounds;
	}

	/**
	 * Check a run.
	 * @param operations the journal's operations
	 * @param faults what the injector did
	 * @param serverValues the value each written key holds on the server afterwards
	 * ({@code null} or absent when the key does not exist)
	 * @param afterwards the state after the client shut down
	 * @param nowNanos the time of the check, for operations that have not ended
	 * @return the verdict
	 */
	public Verdict check(List<Operation> operations, List<InjectedFault> faults,
			Map<String, @Nullable String> serverValues, Afterwards afterwards, long nowNanos) {
		List<Violation> violations = new ArrayList<>();
		Map<WriteId, Operation> writes = new HashMap<>();
		for (Operation operation : operations) {
			Values.Written written = Values.parse(operation.value());
			if (written != null) {
				writes.put(new WriteId(written.key(), written.sequence()), operation);
			}
		}
		checkWaits(operations, nowNanos, violations);
		Map<Outcome, Integer> appliedAfterFailure = new EnumMap<>(Outcome.class);
		Set<WriteId> appliedBeforeBreak = new HashSet<>();
		checkReplies(operations, writes, violations, appliedBeforeBreak);
		List<Operation> lostByServer = new ArrayList<>();
		checkServerValues(operations, writes, faults, serverValues, violations, appliedAfterFailure, appliedBeforeBreak,
				lostByServer);
		if (!appliedBeforeBreak.isEmpty()) {
			appliedAfterFailure.put(Outcome.CONNECTION_ERROR, appliedBeforeBreak.size());
		}
		List<Recovery> recoveries = recoveries(operations, faults);
		checkTrafficBack(operations, faults, violations);
		checkAfterwards(afterwards, violations);
		return new Verdict(violations, lostByServer, appliedAfterFailure, recoveries);
	}

	private void checkWaits(List<Operation> operations, long nowNanos, List<Violation> violations) {
		for (Operation operation : operations) {
			Duration bound = operation.kind().isBlocking() ? this.bounds.blocking() : this.bounds.regular();
			Duration waited = operation.waited(nowNanos);
			if (!operation.ended()) {
				violations.add(new Violation("bounded-wait", "no outcome after " + millis(waited), operation));
			}
			else if (waited.compareTo(bound) > 0) {
				violations.add(new Violation("bounded-wait", "waited " + millis(waited) + ", bound " + millis(bound),
						operation));
			}
		}
	}

	private void checkReplies(List<Operation> operations, Map<WriteId, Operation> writes, List<Violation> violations,
			Set<WriteId> appliedBeforeBreak) {
		for (Operation operation : operations) {
			if (!operation.kind().isRead() || operation.outcome() != Outcome.OK || operation.reply() == null) {
				continue;
			}
			Values.Written written = Values.parse(operation.reply());
			if (written == null || !written.key().equals(operation.key())) {
				violations.add(new Violation("reply-belongs",
						"read " + operation.key() + " returned " + operation.reply(), operation));
				continue;
			}
			Operation write = writes.get(new WriteId(written.key(), written.sequence()));
			if (write == null || write.startNanos() > operation.endNanos()) {
				violations.add(new Violation("reply-belongs",
						"returned " + operation.reply() + ", which no write had sent by then", operation));
			}
			else if (write.outcome() != null && write.outcome().forbidsApplication()) {
				violations.add(new Violation("failed-write-not-applied",
						"a read saw " + operation.reply() + ", whose write failed with " + write.outcome(), write));
			}
			else if (write.outcome() != null && write.outcome().forbidsLateApplication()) {
				checkNotLate(write, operation.startNanos(), "a read saw " + operation.reply(), operations, violations,
						appliedBeforeBreak);
			}
		}
	}

	// A write whose connection broke may have run before it broke; it ran after its
	// caller was told only if a read that started after that saw an older value, and
	// the write is seen after that read (a read starting then, or the server at the end:
	// no sighting time).
	private static void checkNotLate(Operation write, @Nullable Long seenAtNanos, String sighting,
			List<Operation> operations, List<Violation> violations, Set<WriteId> appliedBeforeBreak) {
		Operation older = olderReadAfterFailure(write, seenAtNanos, operations);
		if (older != null) {
			violations.add(new Violation("failed-write-not-applied", sighting + ", whose write failed with "
					+ write.outcome() + ", after a read that started later saw " + older.reply(), write));
		}
		else {
			appliedBeforeBreak.add(new WriteId(write.key(), sequence(write)));
		}
	}

	private static @Nullable Operation olderReadAfterFailure(Operation write, @Nullable Long seenAtNanos,
			List<Operation> operations) {
		long sequence = sequence(write);
		for (Operation read : operations) {
			if (!read.kind().isRead() || read.outcome() != Outcome.OK || !read.key().equals(write.key())
					|| read.startNanos() - write.endNanos() < 0
					|| (seenAtNanos != null && read.endNanos() - seenAtNanos > 0)) {
				continue;
			}
			Values.Written seen = Values.parse(read.reply());
			if (seen == null || seen.sequence() < sequence) {
				return read;
			}
		}
		return null;
	}

	private void checkServerValues(List<Operation> operations, Map<WriteId, Operation> writes,
			List<InjectedFault> faults, Map<String, @Nullable String> serverValues, List<Violation> violations,
			Map<Outcome, Integer> appliedAfterFailure, Set<WriteId> appliedBeforeBreak, List<Operation> lostByServer) {
		Map<String, Operation> lastAcknowledged = new HashMap<>();
		for (Operation operation : operations) {
			if (operation.kind().isWrite() && operation.outcome() == Outcome.OK) {
				lastAcknowledged.merge(operation.key(), operation, (a, b) -> (sequence(b) > sequence(a)) ? b : a);
			}
		}
		for (Map.Entry<String, @Nullable String> entry : serverValues.entrySet()) {
			Values.Written held = Values.parse(entry.getValue());
			if (held == null) {
				continue;
			}
			Operation write = writes.get(new WriteId(held.key(), held.sequence()));
			if (write == null) {
				violations.add(new Violation("reply-belongs",
						entry.getKey() + " holds " + entry.getValue() + ", which no write sent", null));
			}
			else if (write.outcome() == null || write.outcome() != Outcome.OK) {
				if (write.outcome() != null && write.outcome().forbidsApplication()) {
					violations.add(new Violation("failed-write-not-applied",
							entry.getKey() + " holds a write that failed with " + write.outcome(), write));
				}
				else if (write.outcome() != null && write.outcome().forbidsLateApplication()) {
					checkNotLate(write, null, entry.getKey() + " holds " + entry.getValue(), operations, violations,
							appliedBeforeBreak);
				}
				else {
					appliedAfterFailure.merge((write.outcome() != null) ? write.outcome() : Outcome.OTHER_ERROR, 1,
							Integer::sum);
				}
			}
		}
		for (Operation acknowledged : lastAcknowledged.values()) {
			Values.Written held = Values.parse(serverValues.get(acknowledged.key()));
			if (held != null && held.sequence() >= sequence(acknowledged)) {
				continue;
			}
			if (lostBy(acknowledged, faults)) {
				lostByServer.add(acknowledged);
			}
			else {
				violations.add(new Violation(
						"acknowledged-write-present", acknowledged.key() + " holds "
								+ serverValues.get(acknowledged.key()) + " after the write was acknowledged",
						acknowledged));
			}
		}
	}

	// A fault that may lose writes and had not healed when the write was acknowledged:
	// the server that held the write died, or was replaced, afterwards. Its heal, not its
	// injection, is the line: a kill takes a moment, and a write acknowledged in that
	// moment is lost with the rest.
	private static boolean lostBy(Operation acknowledged, List<InjectedFault> faults) {
		for (InjectedFault fault : faults) {
			if (!fault.skipped() && fault.fault().kind().losesWrites()
					&& fault.healedNanos() - acknowledged.endNanos() > 0) {
				return true;
			}
		}
		return false;
	}

	private List<Recovery> recoveries(List<Operation> operations, List<InjectedFault> faults) {
		List<Recovery> recoveries = new ArrayList<>();
		for (InjectedFault fault : faults) {
			Long firstOk = null;
			long healed = allHealed(fault, faults);
			if (!fault.skipped()) {
				for (Operation operation : operations) {
					if (operation.outcome() == Outcome.OK && operation.startNanos() - healed >= 0
							&& (firstOk == null || operation.endNanos() - firstOk < 0)) {
						firstOk = operation.endNanos();
					}
				}
			}
			Duration recovery = (firstOk != null) ? Duration.ofNanos(Math.max(0, firstOk - healed)) : null;
			recoveries.add(new Recovery(fault, recovery));
		}
		return recoveries;
	}

	// A fault that heals while another is under way (a pause lifted while the server is
	// shut down) recovers when the last of them heals
	private static long allHealed(InjectedFault fault, List<InjectedFault> faults) {
		long healed = fault.healedNanos();
		boolean later = true;
		while (later) {
			later = false;
			for (InjectedFault other : faults) {
				if (!other.skipped() && other.injectedNanos() - healed <= 0 && other.healedNanos() - healed > 0) {
					healed = other.healedNanos();
					later = true;
				}
			}
		}
		return healed;
	}

	private void checkTrafficBack(List<Operation> operations, List<InjectedFault> faults, List<Violation> violations) {
		InjectedFault last = null;
		for (InjectedFault fault : faults) {
			if (!fault.skipped() && (last == null || fault.healedNanos() - last.healedNanos() > 0)) {
				last = fault;
			}
		}
		if (last == null) {
			return;
		}
		Recovery recovery = recoveries(operations, List.of(last)).get(0);
		if (recovery.time() == null) {
			violations.add(new Violation("traffic-back", "no operation succeeded after the last fault, " + last, null));
		}
		else if (recovery.time().compareTo(this.bounds.recovery()) > 0) {
			violations.add(new Violation("traffic-back", "first success " + millis(recovery.time())
					+ " after the last fault healed, bound " + millis(this.bounds.recovery()) + ": " + last, null));
		}
	}

	private static void checkAfterwards(Afterwards afterwards, List<Violation> violations) {
		if (afterwards.inFlight() != 0) {
			violations.add(new Violation("in-flight-zero", afterwards.inFlight() + " commands in flight", null));
		}
		for (String leak : afterwards.leaks()) {
			violations.add(new Violation("no-leak", leak, null));
		}
	}

	private static long sequence(Operation operation) {
		Values.Written written = Values.parse(operation.value());
		return (written != null) ? written.sequence() : -1;
	}

	static String millis(Duration duration) {
		return duration.toMillis() + " ms";
	}

	private record WriteId(String key, long sequence) {

	}

	/**
	 * How long callers may wait.
	 *
	 * @param regular the bound for every command but blocking ones: with the outage
	 * guard, its grace plus its stall timeout plus a margin
	 * @param blocking the bound for blocking commands: their own timeout plus the command
	 * timeout
	 * @param recovery how soon after the last fault traffic must succeed again
	 */
	public record Bounds(Duration regular, Duration blocking, Duration recovery) {

	}

	/**
	 * The state after the run's client shut down.
	 *
	 * @param inFlight the commands still counted in flight
	 * @param leaks every connection, thread, timer task or pool object left, described
	 */
	public record Afterwards(long inFlight, List<String> leaks) {

		/**
		 * Create the state.
		 * @param inFlight the commands still counted in flight
		 * @param leaks every connection, thread, timer task or pool object left
		 */
		public Afterwards {
			leaks = List.copyOf(leaks);
		}

	}

	/**
	 * How soon traffic succeeded after one fault healed.
	 *
	 * @param fault the fault
	 * @param time from its heal (or the heal of the last fault under way then) to the end
	 * of the first success issued after it, or {@code null} if none
	 */
	public record Recovery(InjectedFault fault, @Nullable Duration time) {

	}

	/**
	 * The outcome of the checks.
	 *
	 * @param violations the invariants broken
	 * @param lostByServer acknowledged writes missing after a fault that may lose writes
	 * @param appliedAfterFailure writes on the server whose caller saw them fail, by how
	 * they failed (the documented stall case and its kin)
	 * @param recoveries how soon traffic succeeded after each fault
	 */
	public record Verdict(List<Violation> violations, List<Operation> lostByServer,
			Map<Outcome, Integer> appliedAfterFailure, List<Recovery> recoveries) {

		/**
		 * Return the violations as text, one per line, for an assertion message.
		 * @return the text
		 */
		public String describe() {
			StringBuilder text = new StringBuilder();
			text.append(this.violations.size())
				.append(" violations, ")
				.append(this.lostByServer.size())
				.append(" acknowledged writes lost by the server, applied after failure ")
				.append(this.appliedAfterFailure)
				.append('\n');
			for (Violation violation : this.violations) {
				text.append("  ").append(violation).append('\n');
			}
			return text.toString();
		}

	}

}
