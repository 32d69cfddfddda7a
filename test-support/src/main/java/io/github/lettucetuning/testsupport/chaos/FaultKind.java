package io.github.lettucetuning.testsupport.chaos;

import java.util.EnumSet;
import java.util.Set;

import io.github.lettucetuning.testsupport.topology.TopologyKind;

/**
 * A kind of fault a campaign injects, the topologies it applies to, and whether it may
 * restart a server without persistence, wiping the writes it acknowledged. Whether one
 * injection did is {@link InjectedFault#losesWrites()} (only when the node hit was a
 * master); writes lost by a failover before they were replicated are told apart by
 * replication tracking ({@link Invariants.Replication}), not by this flag.
 */
public enum FaultKind {

	/**
	 * {@code SHUTDOWN NOSAVE}, then a start on the same port after the fault's duration.
	 */
	STOP_RESTART(true, TopologyKind.values()),

	/**
	 * {@code SIGKILL} ({@code kill -9}), then a start on the same port after the fault's
	 * duration.
	 */
	KILL(true, TopologyKind.values()),

	/**
	 * {@code SIGSTOP} for the fault's duration, then {@code SIGCONT}.
	 */
	PAUSE(false, TopologyKind.values()),

	/**
	 * {@code CLIENT KILL TYPE normal}: every client connection at once.
	 */
	CLIENT_KILL_TYPE(false, TopologyKind.values()),

	/**
	 * {@code CLIENT KILL ADDR}: one client connection, chosen by the schedule's target.
	 */
	CLIENT_KILL_ADDR(false, TopologyKind.values()),

	/**
	 * Packets to the node dropped for the fault's duration (needs root and nftables or
	 * iptables; skipped, and recorded as skipped, without them).
	 */
	BLACKHOLE(false, TopologyKind.values()),

	/**
	 * {@code DEBUG SLEEP} for the fault's duration.
	 */
	DEBUG_SLEEP(false, TopologyKind.values()),

	/**
	 * {@code CLUSTER FAILOVER} of a replica.
	 */
	CLUSTER_FAILOVER(false, TopologyKind.CLUSTER),

	/**
	 * Slots moved from one master to another while traffic runs.
	 */
	RESHARD(false, TopologyKind.CLUSTER),

	/**
	 * {@code SENTINEL FAILOVER} of the master.
	 */
	SENTINEL_FAILOVER(false, TopologyKind.SENTINEL),

	/**
	 * A replica paused so that it falls behind its master, for the fault's duration.
	 */
	REPLICA_LAG(false, TopologyKind.SENTINEL, TopologyKind.CLUSTER);

	private final boolean losesWrites;

	private final Set<TopologyKind> topologies;

	FaultKind(boolean losesWrites, TopologyKind... topologies) {
		this.losesWrites = losesWrites;
		this.topologies = EnumSet.of(topologies[0], topologies);
	}

	/**
	 * Return whether the fault restarts a server without persistence, so that a master it
	 * hits loses the writes it acknowledged (a failover's losses are not counted here:
	 * they depend on replication, see {@link Invariants.Replication}).
	 * @return whether acknowledged writes may be wiped by a restart
	 */
	public boolean losesWrites() {
		return this.losesWrites;
	}

	/**
	 * Return whether the fault applies to a topology.
	 * @param topology the topology
	 * @return whether it can be injected there
	 */
	public boolean appliesTo(TopologyKind topology) {
		return this.topologies.contains(topology);
	}

	/**
	 * Return the kinds that apply to a topology.
	 * @param topology the topology
	 * @return the kinds, in declaration order
	 */
	public static Set<FaultKind> forTopology(TopologyKind topology) {
		Set<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
		for (FaultKind kind : values()) {
			if (kind.appliesTo(topology)) {
				kinds.add(kind);
			}
		}
		return kinds;
	}

}
