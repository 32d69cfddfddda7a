package io.github.lettucetuning.testsupport.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * One line of {@code CLUSTER NODES}: how one node sees another (or itself).
 *
 * @param id the node id
 * @param host the announced host
 * @param port the client port
 * @param flags the flags ({@code myself}, {@code master}, {@code slave}, {@code fail},
 * ...)
 * @param masterId the id of its master for a replica, {@code null} for a master
 * @param linkState {@code connected} or {@code disconnected}
 * @param slots the slots it serves (importing/migrating markers are left out)
 */
public record ClusterNodeInfo(String id, String host, int port, Set<String> flags, @Nullable String masterId,
		String linkState, List<SlotRange> slots) {

	public ClusterNodeInfo {
		flags = Set.copyOf(flags);
		slots = List.copyOf(slots);
	}

	/**
	 * Parse the full reply of {@code CLUSTER NODES}.
	 * @param clusterNodes the reply text
	 * @return one entry per node
	 */
	public static List<ClusterNodeInfo> parseAll(String clusterNodes) {
		List<ClusterNodeInfo> nodes = new ArrayList<>();
		for (String line : clusterNodes.split("\r?\n")) {
			if (!line.isBlank()) {
				nodes.add(parse(line));
			}
		}
		return nodes;
	}

	/**
	 * Parse one line: {@code <id> <ip:port@cport[,hostname]> <flags> <master> <ping-sent>
	 * <pong-recv> <config-epoch> <link-state> <slot> <slot> ...}.
	 * @param line the line
	 * @return the entry
	 */
	public static ClusterNodeInfo parse(String line) {
		String[] fields = line.trim().split(" ");
		if (fields.length < 8) {
			throw new IllegalArgumentException("Not a CLUSTER NODES line: " + line);
		}
		String address = fields[1];
		int at = address.indexOf('@');
		String hostAndPort = (at >= 0) ? address.substring(0, at) : address;
		int colon = hostAndPort.lastIndexOf(':');
		List<SlotRange> slots = new ArrayList<>();
		for (int i = 8; i < fields.length; i++) {
			if (!fields[i].startsWith("[")) {
				slots.add(SlotRange.parse(fields[i]));
			}
		}
		String masterId = "-".equals(fields[3]) ? null : fields[3];
		return new ClusterNodeInfo(fields[0], hostAndPort.substring(0, colon),
				Integer.parseInt(hostAndPort.substring(colon + 1)), Set.of(fields[2].split(",")), masterId, fields[7],
				slots);
	}

	public boolean isMaster() {
		return this.flags.contains("master");
	}

	public boolean isReplica() {
		return this.flags.contains("slave");
	}

	public boolean isMyself() {
		return this.flags.contains("myself");
	}

	/**
	 * Return whether the node is flagged as failing ({@code fail} or {@code fail?}).
	 * @return whether the node is failing
	 */
	public boolean isFailing() {
		return this.flags.contains("fail") || this.flags.contains("fail?");
	}

	public boolean isInHandshake() {
		return this.flags.contains("handshake");
	}

	public boolean ownsSlot(int slot) {
		return this.slots.stream().anyMatch((range) -> range.contains(slot));
	}

	public int slotCount() {
		return this.slots.stream().mapToInt(SlotRange::size).sum();
	}

}
