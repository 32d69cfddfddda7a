package io.github.lettucetuning.testsupport.chaos;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.github.lettucetuning.testsupport.server.RedisNode;

/**
 * Which data nodes act as masters, asked afresh when a node can answer and remembered for
 * when it cannot (a node paused or down keeps the role it was last seen in: that is the
 * role whose loss decides whether a kill may lose writes).
 */
final class MasterRoles {

	private final Map<RedisNode, Boolean> lastSeen = new ConcurrentHashMap<>();

	private final Function<RedisNode, String> role;

	/**
	 * Create the record.
	 * @param role how to ask a node its role ({@code master} or {@code slave})
	 */
	MasterRoles(Function<RedisNode, String> role) {
		this.role = role;
	}

	boolean isMaster(RedisNode node) {
		if (TopologyFaults.reachable(node)) {
			try {
				seen(node, "master".equals(this.role.apply(node)));
			}
			catch (RuntimeException ex) {
				// Keep what was seen last
			}
		}
		return this.lastSeen.getOrDefault(node, false);
	}

	void seen(RedisNode node, boolean master) {
		this.lastSeen.put(node, master);
	}

}
