package io.github.lettucetuning.testsupport.topology;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.lettucetuning.testsupport.server.Await.Outcome;
import io.github.lettucetuning.testsupport.server.RedisInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import org.jspecify.annotations.Nullable;

/**
 * One check of whether a cluster has settled: every reachable node reports
 * {@code cluster_state:ok}, knows every other reachable node and flags none of them as
 * failing, agrees with the others on roles and slot ownership, and every replica of a
 * reachable master has its link up.
 */
final class ClusterAgreement {

	private final List<RedisNode> nodes;

	private final Function<RedisNode, String> nodeIds;

	ClusterAgreement(List<RedisNode> nodes, Function<RedisNode, String> nodeIds) {
		this.nodes = List.copyOf(nodes);
		this.nodeIds = nodeIds;
	}

	/**
	 * Check the cluster once.
	 * @return the agreed {@code CLUSTER NODES} view, or why there is none yet
	 */
	Outcome<List<ClusterNodeInfo>> check() {
		List<RedisNode> reachable = this.nodes.stream().filter(Nodes::isReachable).toList();
		Set<String> reachableIds = reachable.stream().map(this.nodeIds).collect(Collectors.toSet());
		String reference = null;
		RedisNode referenceNode = null;
		List<ClusterNodeInfo> referenceView = List.of();
		for (RedisNode node : reachable) {
			List<ClusterNodeInfo> view = ClusterNodeInfo.parseAll(Nodes.probe(node, "CLUSTER", "NODES"));
			String unmet = unmetState(node, view, reachableIds);
			if (unmet != null) {
				return Outcome.notYet(unmet);
			}
			String signature = signature(view, reachableIds);
			if (reference == null) {
				reference = signature;
				referenceNode = node;
				referenceView = view;
			}
			else if (!reference.equals(signature)) {
				return Outcome
					.notYet(node + " sees [" + signature + "] but " + referenceNode + " sees [" + reference + "]");
			}
		}
		return Outcome.done(referenceView);
	}

	private @Nullable String unmetState(RedisNode node, List<ClusterNodeInfo> view, Set<String> reachableIds) {
		Map<String, String> info = RedisInfo.parse(Nodes.probe(node, "CLUSTER", "INFO"));
		if (!"ok".equals(info.get("cluster_state"))) {
			return node + " reports cluster_state:" + info.get("cluster_state");
		}
		Set<String> known = view.stream()
			.filter((entry) -> !entry.isInHandshake())
			.map(ClusterNodeInfo::id)
			.collect(Collectors.toSet());
		if (!known.containsAll(reachableIds) || view.stream().anyMatch(ClusterNodeInfo::isInHandshake)) {
			return node + " does not know every node yet";
		}
		// A node that came back is flagged fail until its peers hear from it again, and
		// every topology query skips failing nodes
		List<String> failing = view.stream()
			.filter((entry) -> entry.isFailing() && reachableIds.contains(entry.id()))
			.map(ClusterNodeInfo::id)
			.toList();
		if (!failing.isEmpty()) {
			return node + " still flags reachable nodes " + failing + " as failing";
		}
		return unmetReplicationLink(node);
	}

	private @Nullable String unmetReplicationLink(RedisNode node) {
		Map<String, String> replication = RedisInfo.parse(Nodes.probe(node, "INFO", "replication"));
		if (!"slave".equals(replication.get("role"))) {
			return null;
		}
		int masterPort = Integer.parseInt(replication.getOrDefault("master_port", "-1"));
		boolean masterReachable = this.nodes.stream()
			.anyMatch((candidate) -> candidate.port() == masterPort && Nodes.isReachable(candidate));
		if (masterReachable && !"up".equals(replication.get("master_link_status"))) {
			return node + " has master_link_status:" + replication.get("master_link_status");
		}
		return null;
	}

	/**
	 * Describe a view so that two nodes agree exactly when their descriptions are equal.
	 * Flags that legitimately differ between observers (myself, fail?) are left out, and
	 * unreachable nodes only count while they still own slots.
	 */
	private static String signature(List<ClusterNodeInfo> view, Set<String> reachableIds) {
		List<String> lines = new ArrayList<>();
		for (ClusterNodeInfo entry : view) {
			if (reachableIds.contains(entry.id())) {
				lines.add(entry.id() + (entry.isMaster() ? " master " : " replica-of " + entry.masterId() + " ")
						+ entry.slots());
			}
			else if (entry.isMaster() && !entry.slots().isEmpty()) {
				lines.add(entry.id() + " unreachable master " + entry.slots());
			}
		}
		lines.sort(null);
		return String.join("; ", lines);
	}

}
