package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.List;

import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.TopologyKind;
import org.jspecify.annotations.Nullable;

/**
 * What the {@link FaultInjector} needs to know and do per topology: its data nodes, how
 * to bring it back to a usable state after a fault, and the faults only it has.
 */
interface TopologyFaults {

	/**
	 * How long a reconciliation may take before it is given up and noted.
	 */
	Duration RECONCILE_BOUND = Duration.ofSeconds(15);

	TopologyKind topology();

	/**
	 * Return the nodes that hold data, in a stable order (not the Sentinels).
	 * @return the data nodes
	 */
	List<RedisNode> dataNodes();

	/**
	 * Return whether a data node acts as a master now (or did when last seen, if it
	 * cannot be asked).
	 * @param node the node
	 * @return whether it is a master
	 */
	boolean isMaster(RedisNode node);

	/**
	 * Bring the topology back to one it can serve from, within {@link #RECONCILE_BOUND};
	 * only reachable nodes are touched, since other faults may be under way.
	 * @return {@code null} once it converged, or why it did not
	 */
	@Nullable String reconcile();

	/**
	 * Fail the master over ({@code SENTINEL FAILOVER} or {@code CLUSTER FAILOVER}) and
	 * wait until the topology is usable again.
	 * @param fault the fault, whose target picks the node
	 * @return what was done
	 * @throws NotInjectable if it cannot be done now
	 */
	String failover(ScheduledFault fault);

	/**
	 * Move slots between masters.
	 * @param fault the fault, whose target picks the slots and masters
	 * @return what was done
	 * @throws NotInjectable if it cannot be done now
	 */
	String reshard(ScheduledFault fault);

	/**
	 * Return the replica to make lag behind its master.
	 * @param fault the fault, whose target picks the replica
	 * @return the replica
	 * @throws NotInjectable if there is none to pause now
	 */
	RedisNode laggingReplica(ScheduledFault fault);

	/**
	 * Return whether a node can be asked something: it runs and is not paused.
	 * @param node the node
	 * @return whether it is reachable
	 */
	static boolean reachable(RedisNode node) {
		return node.isAlive() && !node.isPaused();
	}

	/**
	 * A fault that cannot be injected at its moment, with the reason.
	 */
	final class NotInjectable extends RuntimeException {

		NotInjectable(String reason) {
			super(reason);
		}

	}

}
