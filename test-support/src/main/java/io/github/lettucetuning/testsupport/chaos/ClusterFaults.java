package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.github.lettucetuning.testsupport.server.Await;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.ClusterNodeInfo;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import org.jspecify.annotations.Nullable;

/**
 * A cluster of masters and replicas. Reconciling waits until the reachable nodes agree
 * and report {@code cluster_state:ok}: the cluster heals itself.
 */
final class ClusterFaults implements TopologyFaults {

	private static final Duration PROMOTION_BOUND = Duration.ofSeconds(10);

	private static final int RESHARD_ATTEMPTS = 3;

	private final RedisClusterTopology topology;

	private final List<RedisNode> dataNodes;

	private final MasterRoles roles = new MasterRoles(RedisNode::role);

	ClusterFaults(RedisClusterTopology topology) {
		this.topology = topology;
		this.dataNodes = topology.nodes();
		List<RedisNode> masters = topology.masters();
		this.dataNodes.forEach((node) -> this.roles.seen(node, masters.contains(node)));
	}

	@Override
	public Topology topology() {
		return Topology.CLUSTER;
	}

	@Override
	public List<RedisNode> dataNodes() {
		return this.dataNodes;
	}

	@Override
	public boolean isMaster(RedisNode node) {
		return this.roles.isMaster(node);
	}

	@Override
	public @Nullable String reconcile() {
		try {
			this.topology.awaitClusterOk(RECONCILE_BOUND);
			return null;
		}
		catch (RuntimeException ex) {
			return "heal incomplete: " + ex.getMessage();
		}
	}

	@Override
	public String failover(ScheduledFault fault) {
		List<ClusterNodeInfo> view = this.topology.clusterNodes();
		List<RedisNode> candidates = new ArrayList<>();
		for (ClusterNodeInfo entry : view) {
			RedisNode node = nodeAt(entry.port());
			RedisNode master = masterOf(view, entry);
			if (entry.isReplica() && !entry.isFailing() && node != null && TopologyFaults.reachable(node)
					&& master != null && TopologyFaults.reachable(master)) {
				candidates.add(node);
			}
		}
		if (candidates.isEmpty()) {
			throw new NotInjectable("no running replica whose master is reachable");
		}
		candidates.sort(Comparator.comparingInt(RedisNode::port));
		RedisNode replica = candidates.get(fault.target() % candidates.size());
		replica.command("CLUSTER", "FAILOVER");
		String promotion = awaitPromoted(replica);
		String unreconciled = reconcile();
		return "CLUSTER FAILOVER on " + replica.port() + ((promotion != null) ? ", " + promotion : ", promoted")
				+ ((unreconciled != null) ? ", " + unreconciled : "");
	}

	// A coordinated failover needs its master's agreement: a paused master keeps it from
	// completing
	private @Nullable String awaitPromoted(RedisNode replica) {
		long deadline = System.nanoTime() + PROMOTION_BOUND.toNanos();
		String role = "?";
		while (System.nanoTime() - deadline < 0) {
			try {
				role = replica.role();
				if ("master".equals(role)) {
					this.roles.seen(replica, true);
					return null;
				}
			}
			catch (RuntimeException ex) {
				role = ex.getMessage();
			}
			Await.sleep(Duration.ofMillis(100));
		}
		return "not promoted within " + PROMOTION_BOUND.toMillis() + " ms (role " + role + ")";
	}

	@Override
	public String reshard(ScheduledFault fault) {
		List<ClusterNodeInfo> masters = new ArrayList<>();
		for (ClusterNodeInfo entry : this.topology.clusterNodes()) {
			RedisNode node = nodeAt(entry.port());
			if (entry.isMaster() && !entry.isFailing() && node != null && TopologyFaults.reachable(node)) {
				masters.add(entry);
			}
		}
		if (masters.size() < 2) {
			throw new NotInjectable("fewer than two reachable masters");
		}
		masters.sort(
				Comparator.comparingInt(ClusterNodeInfo::slotCount).reversed().thenComparingInt(ClusterNodeInfo::port));
		ClusterNodeInfo fromEntry = masters.get(0);
		List<ClusterNodeInfo> others = masters.subList(1, masters.size());
		ClusterNodeInfo toEntry = others.get(fault.target() % others.size());
		RedisNode from = nodeAt(fromEntry.port());
		RedisNode to = nodeAt(toEntry.port());
		int count = 20 + fault.target() % 41;
		return moveSlots(from, to, count, toEntry.slotCount());
	}

	// Another fault may break a migration midway: retry the slots not moved yet once the
	// cluster is ok again, so that none is left MIGRATING or IMPORTING
	private String moveSlots(RedisNode from, RedisNode to, int count, int toSlotsBefore) {
		List<Integer> moved = new ArrayList<>();
		String failure = null;
		for (int attempt = 1; attempt <= RESHARD_ATTEMPTS; attempt++) {
			try {
				int remaining = count - (slotCount(to) - toSlotsBefore);
				if (remaining > 0) {
					moved.addAll(this.topology.migrateSlots(from, to, remaining));
				}
				failure = null;
				break;
			}
			catch (RuntimeException ex) {
				failure = ex.getClass().getSimpleName() + ": " + ex.getMessage();
				reconcile();
			}
		}
		int total = slotCount(to) - toSlotsBefore;
		String slots = moved.isEmpty() ? "" : " slots " + moved.get(0) + ".." + moved.get(moved.size() - 1);
		return "moved " + total + " of " + count + " slots from " + from.port() + " to " + to.port() + slots
				+ ((failure != null) ? ", incomplete after " + RESHARD_ATTEMPTS + " attempts: " + failure : "");
	}

	private int slotCount(RedisNode node) {
		String id = this.topology.nodeId(node);
		return this.topology.clusterNodes()
			.stream()
			.filter((entry) -> entry.id().equals(id))
			.mapToInt(ClusterNodeInfo::slotCount)
			.findFirst()
			.orElse(0);
	}

	@Override
	public RedisNode laggingReplica(ScheduledFault fault) {
		List<RedisNode> replicas = new ArrayList<>();
		for (ClusterNodeInfo entry : this.topology.clusterNodes()) {
			RedisNode node = nodeAt(entry.port());
			if (entry.isReplica() && !entry.isFailing() && node != null && TopologyFaults.reachable(node)) {
				replicas.add(node);
			}
		}
		if (replicas.isEmpty()) {
			throw new NotInjectable("no reachable replica");
		}
		replicas.sort(Comparator.comparingInt(RedisNode::port));
		return replicas.get(fault.target() % replicas.size());
	}

	private @Nullable RedisNode masterOf(List<ClusterNodeInfo> view, ClusterNodeInfo replica) {
		return view.stream()
			.filter((entry) -> entry.id().equals(replica.masterId()))
			.findFirst()
			.map((entry) -> nodeAt(entry.port()))
			.orElse(null);
	}

	private @Nullable RedisNode nodeAt(int port) {
		return this.dataNodes.stream().filter((node) -> node.port() == port).findFirst().orElse(null);
	}

}
