package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.lettucetuning.testsupport.server.Await;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.ClusterNodeInfo;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import org.jspecify.annotations.Nullable;

/**
 * A cluster of masters and replicas. Reconciling waits until the reachable nodes agree
 * and report {@code cluster_state:ok}: the cluster heals itself, except for the slot
 * states a reshard broken by another fault leaves behind, which it clears where no key is
 * at stake.
 */
final class ClusterFaults implements TopologyFaults {

	private static final Duration PROMOTION_BOUND = Duration.ofSeconds(10);

	private static final int RESHARD_ATTEMPTS = 3;

	// [slot-<-id] importing from id, [slot->-id] migrating to id
	private static final Pattern OPEN_SLOT = Pattern.compile("\\[(\\d+)-([<>])-([0-9a-f]+)]");

	private final RedisClusterTopology topology;

	private final List<RedisNode> dataNodes;

	private final MasterRoles roles = new MasterRoles(RedisNode::role);

	// Slot states are cleared only while no reshard moves slots
	private final ReentrantLock resharding = new ReentrantLock();

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
		String cleared = clearAbandonedSlotStates();
		try {
			this.topology.awaitClusterOk(RECONCILE_BOUND);
			return cleared;
		}
		catch (RuntimeException ex) {
			return ((cleared != null) ? cleared + ", " : "") + "heal incomplete: " + ex.getMessage();
		}
	}

	// A master keeps a slot IMPORTING (or MIGRATING) when the reshard that set it broke
	// off, and ignores what the others say about the owner of a slot it imports: its view
	// stays wrong, and so does its cluster_state. Where neither side holds a key of the
	// slot that the owner lacks, the state is dropped with SETSLOT STABLE, as
	// redis-cli --cluster fix would; a slot with keys on both sides is left as it is.
	private @Nullable String clearAbandonedSlotStates() {
		if (!this.resharding.tryLock()) {
			return null;
		}
		try {
			List<String> cleared = new ArrayList<>();
			for (RedisNode node : this.dataNodes) {
				if (TopologyFaults.reachable(node)) {
					clearAbandonedSlotStates(node, cleared);
				}
			}
			return cleared.isEmpty() ? null : "cleared abandoned slot states " + cleared;
		}
		catch (RuntimeException ex) {
			return "slot states not cleared: " + ex.getMessage();
		}
		finally {
			this.resharding.unlock();
		}
	}

	private void clearAbandonedSlotStates(RedisNode node, List<String> cleared) {
		String myself = String.valueOf(node.command("CLUSTER", "NODES"))
			.lines()
			.filter((line) -> line.contains("myself"))
			.findFirst()
			.orElse("");
		if (!myself.contains("master")) {
			// A replica's slot states are not its own: SETSLOT is for masters
			return;
		}
		Matcher open = OPEN_SLOT.matcher(myself);
		while (open.find()) {
			String slot = open.group(1);
			boolean importing = "<".equals(open.group(2));
			boolean keysHere = keysInSlot(node, slot) > 0;
			// An importing node without the slot's keys, or a migrating owner whose
			// target got none of them yet
			boolean safe = importing ? !keysHere : keysInSlot(peer(open.group(3)), slot) == 0;
			if (safe) {
				node.command("CLUSTER", "SETSLOT", slot, "STABLE");
				cleared.add(node.port() + ":" + slot + (importing ? "<" : ">"));
			}
		}
	}

	private long keysInSlot(@Nullable RedisNode node, String slot) {
		if (node == null || !TopologyFaults.reachable(node)) {
			return Long.MAX_VALUE;
		}
		return Long.parseLong(String.valueOf(node.command("CLUSTER", "COUNTKEYSINSLOT", slot)));
	}

	private @Nullable RedisNode peer(String id) {
		return this.dataNodes.stream()
			.filter((node) -> TopologyFaults.reachable(node) && id.equals(this.topology.nodeId(node)))
			.findFirst()
			.orElse(null);
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
		this.resharding.lock();
		try {
			return reshardLocked(fault);
		}
		finally {
			this.resharding.unlock();
		}
	}

	private String reshardLocked(ScheduledFault fault) {
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
				// A failover under way may have made either side a replica, or taken the
				// target's slots: the count of slots still to move would be wrong
				List<RedisNode> masters = this.topology.masters();
				int gained = slotCount(to) - toSlotsBefore;
				if (!masters.contains(from) || !masters.contains(to) || gained < 0) {
					failure = "roles changed under way";
					break;
				}
				int remaining = count - gained;
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
				+ ((failure != null) ? ", incomplete: " + failure : "");
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
