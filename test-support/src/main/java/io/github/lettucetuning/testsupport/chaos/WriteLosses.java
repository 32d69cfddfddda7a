package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Sorts the acknowledged writes missing on the server: lost by a restart without
 * persistence, lost by a failover before replication, or neither (a violation).
 */
final class WriteLosses {

	private final List<InjectedFault> faults;

	private final Invariants.Replication replication;

	private final List<Operation> byServer = new ArrayList<>();

	private final List<Operation> byFailover = new ArrayList<>();

	WriteLosses(List<InjectedFault> faults, Invariants.Replication replication) {
		this.faults = faults;
		this.replication = replication;
	}

	List<Operation> byServer() {
		return this.byServer;
	}

	List<Operation> byFailover() {
		return this.byFailover;
	}

	/**
	 * Record a missing acknowledged write where it belongs.
	 * @param acknowledged the write
	 * @return why it is a violation, or {@code null} if it is excused
	 */
	@Nullable String classify(Operation acknowledged) {
		if (lostByRestart(acknowledged)) {
			this.byServer.add(acknowledged);
			return null;
		}
		Long confirmed = this.replication.confirmedAt(acknowledged.endNanos());
		Long roleChange = firstRoleChangeAfter(acknowledged.endNanos());
		if (roleChange != null && (confirmed == null || confirmed - roleChange > 0)) {
			this.byFailover.add(acknowledged);
			return null;
		}
		if (confirmed == null) {
			return "it was never confirmed replicated" + ((roleChange == null) ? " and no role changed" : "");
		}
		return "it had been confirmed replicated "
				+ Invariants.millis(Duration.ofNanos(confirmed - acknowledged.endNanos()))
				+ " after its acknowledgement"
				+ ((roleChange != null) ? ", before the next role change" : ", and no role changed");
	}

	// A restart without persistence of a master that had not healed when the write
	// was
	// acknowledged. Its heal, not its injection, is the line: a kill takes a moment,
	// and a write acknowledged in that moment is lost with the rest.
	private boolean lostByRestart(Operation acknowledged) {
		for (InjectedFault fault : this.faults) {
			if (!fault.skipped() && fault.losesWrites() && fault.healedNanos() - acknowledged.endNanos() > 0) {
				return true;
			}
		}
		return false;
	}

	private @Nullable Long firstRoleChangeAfter(long acknowledgedNanos) {
		Long first = null;
		for (long change : this.replication.roleChanges()) {
			if (change - acknowledgedNanos > 0 && (first == null || change - first < 0)) {
				first = change;
			}
		}
		return first;
	}

}
