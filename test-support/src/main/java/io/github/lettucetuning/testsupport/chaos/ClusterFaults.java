package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.lettucetuning.testsupport.server.Await;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RespClient;
import io.github.lettucetuning.testsupport.server.RespErrorException;
import io.github.lettucetuning.testsupport.topology.ClusterNodeInfo;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.github.lettucetuning.testsupport.topology.TopologyKind;
import org.jspecify.annotations.Nullable;

/**
 * A cluster of masters and replicas. Reconciling waits until the reachable nodes agree
 * and report {@code cluster_state:ok}: the cluster heals itself, except for the slot
 * states a reshard broken by another fault leaves behind. Those are cleared as
 * {@code redis-cli --cluster fix} would: the keys of a slot split between both sides of
 * the broken move go to the slot's owner first.
 */
final class ClusterFaults extends ReplicatedTopologyFaults {

	private static final Duration PROMOTION_BOUND = Duration.ofSeconds(10);

	private static final int RESHARD_ATTEMPTS = 3;

	private static final Duration MIGRATE_TIMEOUT = Duration.ofSeconds(5);

	private static final Duration STATE_BOUND = Duration.ofSeconds(3);

	// [slot-<-id] importing from id, [slot->-id] migrating to id
	private static final Pattern OPEN_SLOT = Pattern.compile("\\[(\\d+)-([<>])-([0-9a-f]+)]");

	private final RedisClusterTopology topology;

	// Slot states are cleared only while no reshard moves slots
	private final ReentrantLock resharding = new ReentrantLock();

	ClusterFaults(RedisClusterTopology topology) {
		super(TopologyKind.CLUSTER, topology.nodes(), topology.masters(), RedisNode::role);
		this.topology = topology;
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
	// stays wrong, and so does its cluster_state. As redis-cli --cluster fix would, the
	// states of a slot whose keys all sit with its owner are just dropped (SETSLOT
	// STABLE); a slot whose keys are split between both sides gets them moved to its
	// owner first.
	private @Nullable String clearAbandonedSlotStates() {
		if (!this.resharding.tryLock()) {
			return null;
		}
		List<String> moved = new ArrayList<>();
		List<String> cleared = new ArrayList<>();
		try {
			Map<RedisNode, String> nodesViews = clusterNodesViews();
			Map<String, List<OpenSlot>> open = openSlots(nodesViews);
			List<List<ClusterNodeInfo>> views = nodesViews.values().stream().map(ClusterNodeInfo::parseAll).toList();
			Map<String, RedisNode> owners = new TreeMap<>();
			open.forEach((slot, states) -> {
				if (states.stream().allMatch((state) -> keysOnlyWithOwner(state, slot))) {
					states.forEach((state) -> stable(state, slot, cleared));
				}
				else {
					// Without a reachable owner, a later reconcile moves the keys to the
					// replica taking over
					RedisNode owner = owner(slot, states, views);
					if (owner != null) {
						showOwner(slot, states, owner);
						owners.put(slot, owner);
					}
				}
			});
			owners.forEach((slot, owner) -> moveToOwner(slot, open.get(slot), owner, moved, cleared));
			return outcome(moved, cleared, null);
		}
		catch (RuntimeException ex) {
			return outcome(moved, cleared, "slot states not cleared: " + ex.getMessage());
		}
		finally {
			this.resharding.unlock();
		}
	}

	private static @Nullable String outcome(List<String> moved, List<String> cleared, @Nullable String failure) {
		List<String> parts = new ArrayList<>(moved);
		if (!cleared.isEmpty()) {
			parts.add("cleared abandoned slot states " + cleared);
		}
		if (failure != null) {
			parts.add(failure);
		}
		return parts.isEmpty() ? null : String.join(", ", parts);
	}

	// CLUSTER NODES of every reachable node, read once per heal: the open slot states
	// and the owners both come from it.
	private Map<RedisNode, String> clusterNodesViews() {
		Map<RedisNode, String> views = new LinkedHashMap<>();
		for (RedisNode node : dataNodes()) {
			if (TopologyFaults.reachable(node)) {
				views.put(node, node.commandAsString("CLUSTER", "NODES"));
			}
		}
		return views;
	}

	// A replica's slot states are not its own: SETSLOT is for masters
	private static Map<String, List<OpenSlot>> openSlots(Map<RedisNode, String> nodesViews) {
		Map<String, List<OpenSlot>> open = new TreeMap<>();
		nodesViews.forEach((node, view) -> {
			String myself = view.lines().filter((line) -> line.contains("myself")).findFirst().orElse("");
			Matcher matcher = OPEN_SLOT.matcher(myself.contains("master") ? myself : "");
			while (matcher.find()) {
				open.computeIfAbsent(matcher.group(1), (slot) -> new ArrayList<>())
					.add(new OpenSlot(node, "<".equals(matcher.group(2)), matcher.group(3)));
			}
		});
		return open;
	}

	// An importing node may still see the slot with a master that is gone or a replica
	// now: it then finds the slot uncovered, reports cluster_state:fail and refuses even
	// MIGRATE. Assigning the slot to its owner on that node mends its view and keeps the
	// slot open there.
	private void showOwner(String slot, List<OpenSlot> states, RedisNode owner) {
		for (OpenSlot state : states) {
			if (state.node() != owner && state.importing()) {
				state.node().command("CLUSTER", "SETSLOT", slot, "NODE", this.topology.nodeId(owner));
			}
		}
	}

	private void moveToOwner(String slot, List<OpenSlot> states, RedisNode owner, List<String> moved,
			List<String> cleared) {
		// A migrating node answers the RESTORE of a key it lacks with ASK
		states.stream()
			.filter((state) -> state.node() == owner && !state.importing())
			.forEach((state) -> stable(state, slot, cleared));
		List<OpenSlot> others = states.stream().filter((state) -> state.node() != owner).toList();
		others.forEach((state) -> moveKeys(state.node(), owner, slot, moved));
		others.forEach((state) -> stable(state, slot, cleared));
		// Unlike STABLE, taking the slot bumps the epoch so that the others follow; taken
		// while another master still held keys of it, that master would drop them
		states.stream().filter((state) -> state.node() == owner && state.importing()).forEach((state) -> {
			owner.command("CLUSTER", "SETSLOT", slot, "NODE", this.topology.nodeId(owner));
			cleared.add(state.node().port() + ":" + slot + "<");
		});
	}

	private static void stable(OpenSlot state, String slot, List<String> cleared) {
		state.node().command("CLUSTER", "SETSLOT", slot, "STABLE");
		cleared.add(state.node().port() + ":" + slot + (state.importing() ? "<" : ">"));
	}

	// An importing node without the slot's keys, or a migrating owner whose target got
	// none of them yet
	private boolean keysOnlyWithOwner(OpenSlot state, String slot) {
		return state.importing() ? keysInSlot(state.node(), slot) == 0 : keysInSlot(peer(state.peerId()), slot) == 0;
	}

	// The master most reachable nodes say serves the slot, since an importing node's own
	// view of it is stale; if none does, the node holding its keys, the importing one
	// first
	private @Nullable RedisNode owner(String slot, List<OpenSlot> states, List<List<ClusterNodeInfo>> views) {
		Map<String, Integer> claims = new HashMap<>();
		views.stream()
			.flatMap(List::stream)
			.filter((entry) -> entry.isMaster() && entry.ownsSlot(Integer.parseInt(slot)))
			.forEach((entry) -> claims.merge(entry.id(), 1, Integer::sum));
		if (!claims.isEmpty()) {
			return peer(Collections.max(claims.entrySet(), Map.Entry.comparingByValue()).getKey());
		}
		return states.stream()
			.sorted(Comparator.comparing(OpenSlot::importing).reversed())
			.map(OpenSlot::node)
			.filter((node) -> keysInSlot(node, slot) > 0)
			.findFirst()
			.orElse(null);
	}

	// MIGRATE works on a node whose slot is open, whoever owns the slot, once both sides
	// report cluster_state:ok: a mended view takes a cluster cron to count
	private void moveKeys(RedisNode from, RedisNode to, String slot, List<String> moved) {
		awaitClusterStateOk(from);
		awaitClusterStateOk(to);
		int count = 0;
		int dropped = 0;
		try (RespClient connection = from.connect(MIGRATE_TIMEOUT)) {
			while (connection.command("CLUSTER", "GETKEYSINSLOT", slot, "100") instanceof List<?> batch
					&& !batch.isEmpty()) {
				List<String> keys = batch.stream().map(String::valueOf).toList();
				List<String> migrate = new ArrayList<>(List.of("MIGRATE", to.host(), Integer.toString(to.port()), "",
						"0", Long.toString(MIGRATE_TIMEOUT.toMillis()), "KEYS"));
				migrate.addAll(keys);
				try {
					connection.command(migrate.toArray(String[]::new));
				}
				catch (RespErrorException ex) {
					if (!String.valueOf(ex.getMessage()).contains("BUSYKEY")) {
						throw ex;
					}
					int batchDropped = dropCopiesTheOwnerHas(connection, to, keys);
					if (batchDropped == 0) {
						// The same batch would come back for ever
						throw ex;
					}
					dropped += batchDropped;
					count -= batchDropped;
				}
				count += keys.size();
			}
		}
		if (count > 0 || dropped > 0) {
			moved.add("moved " + count + " keys of slot " + slot + " from " + from.port() + " to " + to.port()
					+ ((dropped > 0) ? " (stale copies the owner also had, dropped: " + dropped + ")" : ""));
		}
	}

	// A key on both sides is a stale copy kept by a former owner: the owner's copy is the
	// one written since, so it wins. MIGRATE moved the batch's other keys and left these.
	private static int dropCopiesTheOwnerHas(RespClient connection, RedisNode owner, List<String> keys) {
		int dropped = 0;
		try (RespClient ownerConnection = owner.connect(MIGRATE_TIMEOUT)) {
			for (String key : keys) {
				if (Long.valueOf(1).equals(asking(ownerConnection, "EXISTS", key))
						&& Long.valueOf(1).equals(asking(connection, "DEL", key))) {
					dropped++;
				}
			}
		}
		return dropped;
	}

	// Without ASKING an importing node redirects commands on the slot; a migrating one
	// answers ASK for a key it no longer has.
	private static @Nullable Object asking(RespClient connection, String... command) {
		connection.command("ASKING");
		try {
			return connection.command(command);
		}
		catch (RespErrorException ex) {
			if (String.valueOf(ex.getMessage()).startsWith("ASK ")) {
				return 0L;
			}
			throw ex;
		}
	}

	private static void awaitClusterStateOk(RedisNode node) {
		Await.until(STATE_BOUND, node + " to report cluster_state:ok",
				() -> node.commandAsString("CLUSTER", "INFO").contains("cluster_state:ok") ? null : "not ok");
	}

	private long keysInSlot(@Nullable RedisNode node, String slot) {
		if (node == null || !TopologyFaults.reachable(node)) {
			return Long.MAX_VALUE;
		}
		return Long.parseLong(String.valueOf(node.command("CLUSTER", "COUNTKEYSINSLOT", slot)));
	}

	private @Nullable RedisNode peer(String id) {
		return dataNodes().stream()
			.filter((node) -> TopologyFaults.reachable(node) && id.equals(this.topology.nodeId(node)))
			.findFirst()
			.orElse(null);
	}

	@Override
	public String failover(ScheduledFault fault) {
		List<ClusterNodeInfo> view = this.topology.clusterNodes();
		List<RedisNode> candidates = new ArrayList<>();
		for (ClusterNodeInfo entry : view) {
			RedisNode node = dataNodeAt(entry.port());
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
					seen(replica, true);
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
			RedisNode node = dataNodeAt(entry.port());
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
		RedisNode from = dataNodeAt(fromEntry.port());
		RedisNode to = dataNodeAt(toEntry.port());
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
			RedisNode node = dataNodeAt(entry.port());
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
			.map((entry) -> dataNodeAt(entry.port()))
			.orElse(null);
	}

	/**
	 * A slot a master marks as importing from, or migrating to, a peer.
	 */
	private record OpenSlot(RedisNode node, boolean importing, String peerId) {

	}

}
