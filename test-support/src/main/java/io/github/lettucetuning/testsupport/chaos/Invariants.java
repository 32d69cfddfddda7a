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
 * the server afterwards (or a later one), unless the server that held it lost it: a
 * restart without persistence of a master ({@link InjectedFault#losesWrites()}) healed
 * after it was acknowledged (reported as lost by the server), or a promotion or demotion
 * happened after it was acknowledged and before it was confirmed replicated (reported as
 * lost by failover, see {@link Replication});</li>
 * <li><b>message-belongs</b>: every Pub/Sub message received names the channel it arrived
 * on and was published by a {@code PUBLISH} that had started by then;</li>
 * <li><b>pubsub-after-recovery</b>: every {@code PUBLISH} that succeeded in a settled
 * window (from the recovery bound after every fault under way healed until the next fault
 * is injected) was received at least once;</li>
 * <li><b>traffic-back</b>: an operation issued after the last fault healed succeeds
 * within the recovery bound;</li>
 * <li><b>in-flight-zero</b> and <b>no-leak</b>: afterwards nothing is in flight, and no
 * client connection or thread is left.</li>
 * </ul>
 * The write checks assume one writer per key, issuing increasing sequence numbers;
 * {@link OpKind#PUBLISH} operations (key: the channel) are neither writes nor reads.
 */
public final class Invariants {

	// A message still on its way to the listener when the next fault hits (a CLIENT KILL
	// drops the server's output buffer) is that fault's loss, not a failed recovery: the
	// settled window closes this long before the next fault
	private static final Duration DELIVERY_MARGIN = Duration.ofMillis(500);

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
	 * @param received the Pub/Sub messages the subscribers received (they should listen
	 * until the publishers stopped, or the last window reports the messages in flight as
	 * missed)
	 * @param replication what replication tracking saw during the run
	 * ({@link Replication#NONE} when nothing was tracked)
	 * @param afterwards the state after the client shut down
	 * @param nowNanos the time of the check, for operations that have not ended
	 * @return the verdict
	 */
	public Verdict check(List<Operation> operations, List<InjectedFault> faults,
			Map<String, @Nullable String> serverValues, List<Journal.Received> received, Replication replication,
			Afterwards afterwards, long nowNanos) {
		List<Violation> violations = new ArrayList<>();
		Map<WriteId, Operation> writes = new HashMap<>();
		Map<String, List<Operation>> readsByKey = new HashMap<>();
		for (Operation operation : operations) {
			Values.Written written = Values.parse(operation.value());
			// A published message carries a value too, but nothing stores it
			if (written != null && operation.kind() != OpKind.PUBLISH) {
				writes.put(new WriteId(written.key(), written.sequence()), operation);
			}
			if (operation.kind().isRead() && operation.outcome() == Outcome.OK) {
				readsByKey.computeIfAbsent(operation.key(), (key) -> new ArrayList<>()).add(operation);
			}
		}
		checkWaits(operations, faults, nowNanos, violations);
		Map<Outcome, Integer> appliedAfterFailure = new EnumMap<>(Outcome.class);
		Set<WriteId> appliedBeforeBreak = new HashSet<>();
		checkReplies(operations, writes, readsByKey, violations, appliedBeforeBreak);
		WriteLosses losses = new WriteLosses(faults, replication);
		checkServerValues(operations, writes, readsByKey, serverValues, violations, appliedAfterFailure,
				appliedBeforeBreak, losses);
		if (!appliedBeforeBreak.isEmpty()) {
			appliedAfterFailure.put(Outcome.CONNECTION_ERROR, appliedBeforeBreak.size());
		}
		PubSubChecks pubSub = new PubSubChecks(operations, received);
		pubSub.checkMessagesBelong(violations);
		pubSub.checkSettledWindows(settledWindows(faults), violations);
		List<Recovery> recoveries = recoveries(operations, faults);
		checkTrafficBack(operations, faults, violations);
		checkAfterwards(afterwards, violations);
		return new Verdict(violations, losses.byServer(), losses.byFailover(), appliedAfterFailure, recoveries);
	}

	private void checkWaits(List<Operation> operations, List<InjectedFault> faults, long nowNanos,
			List<Violation> violations) {
		for (Operation operation : operations) {
			Duration bound = operation.kind().isBlocking() ? this.bounds.blocking() : this.bounds.regular();
			Duration waited = operation.waited(nowNanos);
			if (!operation.ended()) {
				violations.add(new Violation("bounded-wait",
						"no outcome after " + millis(waited) + when(operation, faults, nowNanos), operation));
			}
			else if (waited.compareTo(bound) > 0) {
				violations.add(new Violation("bounded-wait",
						"waited " + millis(waited) + ", bound " + millis(bound) + when(operation, faults, nowNanos),
						operation));
			}
		}
	}

	// Where in the schedule a long wait began and which faults it overlapped: a
	// failed CI run prints only the violation, and this is what tells the path
	private static String when(Operation operation, List<InjectedFault> faults, long nowNanos) {
		if (faults.isEmpty()) {
			return "";
		}
		InjectedFault first = faults.get(0);
		long startNanos = first.injectedNanos() - first.fault().offset().toNanos();
		long endNanos = operation.ended() ? operation.endNanos() : nowNanos;
		List<String> during = new ArrayList<>();
		for (InjectedFault fault : faults) {
			if (!fault.skipped() && fault.injectedNanos() <= endNanos
					&& fault.healedNanos() >= operation.startNanos()) {
				during.add("#" + fault.fault().index() + " " + fault.fault().kind());
			}
		}
		return ", issued " + millis(Duration.ofNanos(operation.startNanos() - startNanos)) + " into the run"
				+ (during.isEmpty() ? "" : " during " + String.join(", ", during));
	}

	private void checkReplies(List<Operation> operations, Map<WriteId, Operation> writes,
			Map<String, List<Operation>> readsByKey, List<Violation> violations, Set<WriteId> appliedBeforeBreak) {
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
				checkNotLate(write, operation.startNanos(), "a read saw " + operation.reply(), readsByKey, violations,
						appliedBeforeBreak);
			}
		}
	}

	// A write whose connection broke may have run before it broke; it ran after its
	// caller was told only if a read that started after that saw an older value, and
	// the write is seen after that read (a read starting then, or the server at the end:
	// no sighting time).
	private static void checkNotLate(Operation write, @Nullable Long seenAtNanos, String sighting,
			Map<String, List<Operation>> readsByKey, List<Violation> violations, Set<WriteId> appliedBeforeBreak) {
		Operation older = olderReadAfterFailure(write, seenAtNanos, readsByKey.getOrDefault(write.key(), List.of()));
		if (older != null) {
			violations.add(new Violation("failed-write-not-applied", sighting + ", whose write failed with "
					+ write.outcome() + ", after a read that started later saw " + older.reply(), write));
		}
		else {
			appliedBeforeBreak.add(new WriteId(write.key(), sequence(write)));
		}
	}

	// The successful reads of the write's key only: indexed once per check, since a run
	// holds millions of operations
	private static @Nullable Operation olderReadAfterFailure(Operation write, @Nullable Long seenAtNanos,
			List<Operation> readsOfKey) {
		long sequence = sequence(write);
		for (Operation read : readsOfKey) {
			if (read.startNanos() - write.endNanos() < 0
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
			Map<String, List<Operation>> readsByKey, Map<String, @Nullable String> serverValues,
			List<Violation> violations, Map<Outcome, Integer> appliedAfterFailure, Set<WriteId> appliedBeforeBreak,
			WriteLosses losses) {
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
					checkNotLate(write, null, entry.getKey() + " holds " + entry.getValue(), readsByKey, violations,
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
			String missing = losses.classify(acknowledged);
			if (missing != null) {
				violations.add(new Violation("acknowledged-write-present", acknowledged.key() + " holds "
						+ serverValues.get(acknowledged.key()) + " after the write was acknowledged; " + missing,
						acknowledged));
			}
		}
	}

	// Windows in which every fault under way had healed a recovery bound ago and the next
	// fault had not been injected yet: the client must be fully back there
	private List<PubSubChecks.Window> settledWindows(List<InjectedFault> faults) {
		Set<Long> starts = new HashSet<>();
		List<PubSubChecks.Window> windows = new ArrayList<>();
		for (InjectedFault fault : faults) {
			if (fault.skipped()) {
				continue;
			}
			long healed = allHealed(fault, faults);
			if (!starts.add(healed)) {
				continue;
			}
			long end = Long.MAX_VALUE;
			for (InjectedFault next : faults) {
				if (!next.skipped() && next.injectedNanos() - healed > 0
						&& (end == Long.MAX_VALUE || next.injectedNanos() - end < 0)) {
					end = next.injectedNanos();
				}
			}
			if (end != Long.MAX_VALUE) {
				end -= DELIVERY_MARGIN.toNanos();
			}
			long start = healed + this.bounds.recovery().toNanos();
			if (end == Long.MAX_VALUE || end - start > 0) {
				windows.add(new PubSubChecks.Window(fault, start, end));
			}
		}
		return windows;
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
	 * @param lostByServer acknowledged writes missing after a restart without persistence
	 * of the master that held them ({@link InjectedFault#losesWrites()})
	 * @param lostByFailover acknowledged writes missing after a promotion or demotion
	 * that happened before they were confirmed replicated
	 * @param appliedAfterFailure writes on the server whose caller saw them fail, by how
	 * they failed (the documented stall case and its kin)
	 * @param recoveries how soon traffic succeeded after each fault
	 */
	public record Verdict(List<Violation> violations, List<Operation> lostByServer, List<Operation> lostByFailover,
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
				.append(" acknowledged writes lost by the server, ")
				.append(this.lostByFailover.size())
				.append(" lost by failover, applied after failure ")
				.append(this.appliedAfterFailure)
				.append('\n');
			for (Violation violation : this.violations) {
				text.append("  ").append(violation).append('\n');
			}
			return text.toString();
		}

	}

	/**
	 * What replication tracking saw during a run, to tell writes lost by a failover
	 * before they were replicated from writes that should have survived.
	 */
	public interface Replication {

		/**
		 * Tracking that saw nothing: no write is confirmed and no role changed, so no
		 * missing write is excused by a failover.
		 */
		Replication NONE = new Replication() {

			@Override
			public @Nullable Long confirmedAt(long acknowledgedNanos) {
				return null;
			}

			@Override
			public List<Long> roleChanges() {
				return List.of();
			}

		};

		/**
		 * Return when a write acknowledged at a time was known to be on every replica.
		 * @param acknowledgedNanos when the write was acknowledged
		 * ({@link System#nanoTime()})
		 * @return the earliest time it was confirmed replicated, or {@code null} if it
		 * never was
		 */
		@Nullable Long confirmedAt(long acknowledgedNanos);

		/**
		 * Return when a node was seen promoted or demoted.
		 * @return the times ({@link System#nanoTime()}), in order
		 */
		List<Long> roleChanges();

	}

}
