package io.github.lettucetuning.testsupport.chaos;

import java.util.List;
import java.util.function.Function;

import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.TopologyKind;
import org.jspecify.annotations.Nullable;

/**
 * What a topology with replication ({@link ClusterFaults}, {@link SentinelFaults}) knows
 * the same way: its data nodes in a stable order, and which of them act as masters.
 */
abstract class ReplicatedTopologyFaults implements TopologyFaults {

	private final TopologyKind topology;

	private final List<RedisNode> dataNodes;

	private final MasterRoles roles;

	/**
	 * Create the faults of a started topology.
	 * @param topology the kind of topology
	 * @param dataNodes the nodes that hold data, in a stable order
	 * @param masters those of them that start as masters
	 * @param role how to ask a node its role ({@code master} or {@code slave})
	 */
	ReplicatedTopologyFaults(TopologyKind topology, List<RedisNode> dataNodes, List<RedisNode> masters,
			Function<RedisNode, String> role) {
		this.topology = topology;
		this.dataNodes = dataNodes;
		this.roles = new MasterRoles(role);
		dataNodes.forEach((node) -> this.roles.seen(node, masters.contains(node)));
	}

	@Override
	public final TopologyKind topology() {
		return this.topology;
	}

	@Override
	public final List<RedisNode> dataNodes() {
		return this.dataNodes;
	}

	@Override
	public final boolean isMaster(RedisNode node) {
		return this.roles.isMaster(node);
	}

	/**
	 * Record the role a node was seen in, for when it cannot be asked.
	 * @param node the node
	 * @param master whether it acts as a master
	 */
	final void seen(RedisNode node, boolean master) {
		this.roles.seen(node, master);
	}

	final @Nullable RedisNode dataNodeAt(int port) {
		return this.dataNodes.stream().filter((node) -> node.port() == port).findFirst().orElse(null);
	}

}
