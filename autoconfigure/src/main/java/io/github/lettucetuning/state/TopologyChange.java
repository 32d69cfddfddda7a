package io.github.lettucetuning.state;

import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;

/**
 * What one cluster topology refresh changed in the client's view: nodes that appeared,
 * nodes that left, and nodes whose role, slots or failure flags changed. Nodes are named
 * {@code host:port} (never with credentials); each list holds at most
 * {@value #MAX_ENTRIES} entries.
 *
 * @param at when the client applied the new topology
 * @param added nodes that joined the view
 * @param removed nodes that left the view
 * @param changed nodes whose role, slots or failure flags changed, described in words
 * @since 0.1.0
 */
public record TopologyChange(Instant at, List<String> added, List<String> removed, List<String> changed) {

	/**
	 * The most entries a list holds, so that a large cluster cannot make the description
	 * unbounded.
	 */
	public static final int MAX_ENTRIES = 20;

	/**
	 * Describe the change between two topologies.
	 * @param at when the change was applied
	 * @param before the nodes before the refresh
	 * @param after the nodes after the refresh
	 * @return the change
	 */
	public static TopologyChange between(Instant at, List<RedisClusterNode> before, List<RedisClusterNode> after) {
		Map<String, RedisClusterNode> previous = byId(before);
		Map<String, RedisClusterNode> current = byId(after);
		List<String> added = new ArrayList<>();
		List<String> removed = new ArrayList<>();
		List<String> changed = new ArrayList<>();
		current.forEach((id, node) -> {
			RedisClusterNode old = previous.get(id);
			if (old == null) {
				add(added, name(node));
			}
			else {
				describeChanges(old, node, changed);
			}
		});
		previous.forEach((id, node) -> {
			if (!current.containsKey(id)) {
				add(removed, name(node));
			}
		});
		return new TopologyChange(at, List.copyOf(added), List.copyOf(removed), List.copyOf(changed));
	}

	private static Map<String, RedisClusterNode> byId(List<RedisClusterNode> nodes) {
		Map<String, RedisClusterNode> byId = new LinkedHashMap<>();
		for (RedisClusterNode node : nodes) {
			byId.put((node.getNodeId() != null) ? node.getNodeId() : name(node), node);
		}
		return byId;
	}

	private static void describeChanges(RedisClusterNode before, RedisClusterNode after, List<String> changed) {
		String name = name(after);
		if (before.getRole() != after.getRole()) {
			add(changed, name + " became " + role(after));
		}
		int slotsBefore = slots(before);
		int slotsAfter = slots(after);
		if (slotsBefore != slotsAfter || !sameSlots(before, after)) {
			add(changed, name + " slots " + slotsBefore + " -> " + slotsAfter);
		}
		boolean failedBefore = failing(before.getFlags());
		boolean failedAfter = failing(after.getFlags());
		if (failedBefore != failedAfter) {
			add(changed, name + (failedAfter ? " flagged failing" : " no longer failing"));
		}
	}

	private static String role(RedisClusterNode node) {
		return node.is(NodeFlag.UPSTREAM) ? "master" : "replica";
	}

	private static int slots(RedisClusterNode node) {
		return node.hasNoSlots() ? 0 : node.getSlots().size();
	}

	private static boolean sameSlots(RedisClusterNode before, RedisClusterNode after) {
		BitSet a = new BitSet();
		before.getSlots().forEach(a::set);
		BitSet b = new BitSet();
		after.getSlots().forEach(b::set);
		return a.equals(b);
	}

	private static boolean failing(Set<NodeFlag> flags) {
		return flags.contains(NodeFlag.FAIL) || flags.contains(NodeFlag.EVENTUAL_FAIL);
	}

	private static void add(List<String> list, String entry) {
		if (list.size() < MAX_ENTRIES) {
			list.add(entry);
		}
	}

	// host:port only: a RedisURI may carry credentials.
	static String name(RedisClusterNode node) {
		RedisURI uri = node.getUri();
		if (uri != null && uri.getHost() != null) {
			return uri.getHost() + ":" + uri.getPort();
		}
		String id = node.getNodeId();
		return (id != null) ? id.substring(0, Math.min(8, id.length())) : "unknown";
	}

}
