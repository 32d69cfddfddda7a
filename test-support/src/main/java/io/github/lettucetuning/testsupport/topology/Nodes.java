package io.github.lettucetuning.testsupport.topology;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.lettucetuning.testsupport.server.RedisNode;
import org.jspecify.annotations.Nullable;

/**
 * Helpers shared by the topologies.
 */
final class Nodes {

	/**
	 * Read timeout of the commands used while polling: short, so that one unresponsive
	 * node does not eat the whole wait budget.
	 */
	static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

	private Nodes() {
	}

	/**
	 * Return whether a node can be asked something: its process runs and is not paused.
	 * @param node the node
	 * @return whether the node is reachable
	 */
	static boolean isReachable(RedisNode node) {
		return node.isAlive() && !node.isPaused();
	}

	static String probe(RedisNode node, String... args) {
		return String.valueOf(node.command(PROBE_TIMEOUT, args));
	}

	/**
	 * Turn a RESP2 flat {@code [key, value, key, value]} array (as sent by
	 * {@code SENTINEL MASTER}) into a map.
	 * @param reply the reply
	 * @return the map
	 */
	static Map<String, String> flatMap(@Nullable Object reply) {
		Map<String, String> map = new LinkedHashMap<>();
		if (reply instanceof List<?> list) {
			for (int i = 0; i + 1 < list.size(); i += 2) {
				map.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
			}
		}
		else if (reply instanceof Map<?, ?> resp3) {
			resp3.forEach((key, value) -> map.put(String.valueOf(key), String.valueOf(value)));
		}
		return map;
	}

	static void stopAll(List<RedisNode> nodes) {
		RuntimeException failure = null;
		for (RedisNode node : nodes) {
			try {
				node.stop();
			}
			catch (RuntimeException ex) {
				// Stop the others first, report the first failure afterwards
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
			}
		}
		if (failure != null) {
			throw failure;
		}
	}

	static void stopAfterFailure(List<RedisNode> started, RuntimeException failure) {
		try {
			stopAll(started);
		}
		catch (RuntimeException ex) {
			failure.addSuppressed(ex);
		}
	}

}
