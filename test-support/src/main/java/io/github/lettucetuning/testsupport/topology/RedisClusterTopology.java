package io.github.lettucetuning.testsupport.topology;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.lettucetuning.testsupport.server.Await.Outcome;
import io.github.lettucetuning.testsupport.server.Await;
import io.github.lettucetuning.testsupport.server.RedisExecutables;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisProcessRegistry;
import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.server.RedisServerException;
import io.github.lettucetuning.testsupport.server.RedisServerLauncher;
import org.jspecify.annotations.Nullable;

/**
 * A Redis Cluster of (by default) three masters with one replica each, created with
 * {@code redis-cli --cluster create}. {@link #start()} returns once every node reports
 * {@code cluster_state:ok}, all nodes agree on the slot map and every replica is in sync.
 * <p>
 * Roles change at run time (failover, kill), so {@link #masters()}, {@link #replicas()}
 * and {@link #masterForSlot(int)} always read the current {@code CLUSTER NODES} of a
 * reachable node instead of remembering how the cluster was created.
 */
public final class RedisClusterTopology implements RedisTopology {

	public static final Duration DEFAULT_NODE_TIMEOUT = Duration.ofMillis(2000);

	private final RedisServerLauncher launcher;

	private final RedisServerConfig nodeConfig;

	private final Duration timeout;

	private final List<RedisNode> nodes;

	private final Map<RedisNode, String> nodeIds = new ConcurrentHashMap<>();

	private final Map<RedisNode, List<ClusterNodeInfo>> viewsBeforeKill = new ConcurrentHashMap<>();

	private volatile List<ClusterNodeInfo> lastAgreedView = List.of();

	private RedisClusterTopology(RedisServerLauncher launcher, RedisServerConfig nodeConfig, Duration timeout,
			List<RedisNode> nodes) {
		this.launcher = launcher;
		this.nodeConfig = nodeConfig;
		this.timeout = timeout;
		this.nodes = new CopyOnWriteArrayList<>(nodes);
	}

	/**
	 * Start a cluster with the defaults.
	 * @return the running cluster
	 */
	public static RedisClusterTopology start() {
		return builder().start();
	}

	public static Builder builder() {
		return new Builder();
	}

	@Override
	public List<RedisNode> nodes() {
		return List.copyOf(this.nodes);
	}

	/**
	 * Return the URI of every node, to seed a cluster client.
	 * @return the URIs
	 */
	public List<String> uris() {
		return this.nodes.stream().map(RedisNode::uri).toList();
	}

	/**
	 * Return the current {@code CLUSTER NODES} of the first reachable node.
	 * @return the cluster view
	 */
	public List<ClusterNodeInfo> clusterNodes() {
		RuntimeException lastFailure = null;
		for (RedisNode node : this.nodes) {
			if (Nodes.isReachable(node)) {
				try {
					return ClusterNodeInfo.parseAll(Nodes.probe(node, "CLUSTER", "NODES"));
				}
				catch (RuntimeException ex) {
					lastFailure = ex;
				}
			}
		}
		throw new RedisServerException("No reachable cluster node answered CLUSTER NODES", lastFailure);
	}

	/**
	 * Return the running nodes that currently act as masters (including empty ones).
	 * @return the masters
	 */
	public List<RedisNode> masters() {
		return runningNodes(clusterNodes().stream().filter((entry) -> entry.isMaster() && !entry.isFailing()));
	}

	/**
	 * Return the running nodes that currently act as replicas.
	 * @return the replicas
	 */
	public List<RedisNode> replicas() {
		return runningNodes(clusterNodes().stream().filter((entry) -> entry.isReplica() && !entry.isFailing()));
	}

	/**
	 * Return the master currently serving a slot.
	 * @param slot the slot
	 * @return the master
	 */
	public RedisNode masterForSlot(int slot) {
		return clusterNodes().stream()
			.filter((entry) -> entry.isMaster() && !entry.isFailing() && entry.ownsSlot(slot))
			.findFirst()
			.flatMap(this::nodeFor)
			.orElseThrow(() -> new RedisServerException("No running master serves slot " + slot));
	}

	/**
	 * Return the master currently serving a key, using our own CRC16 slot calculation.
	 * @param key the key
	 * @return the master
	 */
	public RedisNode masterForKey(String key) {
		return masterForSlot(ClusterSlots.slotFor(key));
	}

	/**
	 * Return the running replicas of a master.
	 * @param master the master
	 * @return its replicas
	 */
	public List<RedisNode> replicasOf(RedisNode master) {
		String masterId = nodeId(master);
		return runningNodes(clusterNodes().stream()
			.filter((entry) -> entry.isReplica() && !entry.isFailing() && masterId.equals(entry.masterId())));
	}

	/**
	 * Return a running replica of a master.
	 * @param master the master
	 * @return one of its replicas
	 */
	public RedisNode replicaOf(RedisNode master) {
		return replicasOf(master).stream()
			.findFirst()
			.orElseThrow(() -> new RedisServerException(master + " has no running replica"));
	}

	/**
	 * Return the cluster node id of a node ({@code CLUSTER MYID}); it survives restarts.
	 * @param node the node
	 * @return the node id
	 */
	public String nodeId(RedisNode node) {
		return this.nodeIds.computeIfAbsent(node, (key) -> key.commandAsString("CLUSTER", "MYID"));
	}

	/**
	 * Promote a replica with {@code CLUSTER FAILOVER} (coordinated with its master) and
	 * wait until it is master and the cluster is ok everywhere.
	 * @param replica the replica to promote
	 */
	public void failover(RedisNode replica) {
		failover(replica, "");
	}

	/**
	 * Promote a replica whose master is unreachable with
	 * {@code CLUSTER FAILOVER TAKEOVER} (no agreement needed) and wait until it is master
	 * and the cluster is ok.
	 * @param replica the replica to promote
	 */
	public void takeover(RedisNode replica) {
		failover(replica, "TAKEOVER");
	}

	private void failover(RedisNode replica, String option) {
		if (!"slave".equals(replica.role())) {
			throw new IllegalArgumentException(replica + " is not a replica");
		}
		if (option.isEmpty()) {
			replica.command("CLUSTER", "FAILOVER");
		}
		else {
			replica.command("CLUSTER", "FAILOVER", option);
		}
		Await.until(this.timeout, replica + " to be promoted to master", () -> {
			String role = replica.role();
			return "master".equals(role) ? null : "role is " + role;
		});
		awaitClusterOk();
	}

	/**
	 * Kill a master with SIGKILL, remembering its slots and replicas for
	 * {@link #awaitReplicaPromoted(RedisNode)}.
	 * @param master the master to kill
	 */
	public void killMaster(RedisNode master) {
		List<ClusterNodeInfo> view = clusterNodes();
		String masterId = nodeId(master);
		boolean isMaster = view.stream().anyMatch((entry) -> entry.id().equals(masterId) && entry.isMaster());
		if (!isMaster) {
			throw new IllegalArgumentException(master + " is not a master");
		}
		this.viewsBeforeKill.put(master, view);
		// The handle's primitives, as Faults.kill uses them: the fault package builds on
		// the topologies, not the other way round
		master.signal("KILL");
		master.awaitExit(Duration.ofSeconds(10));
	}

	/**
	 * Wait until a replica of a killed (or paused) master took over its slots and the
	 * reachable nodes report {@code cluster_state:ok}. Failure detection takes about
	 * {@code cluster-node-timeout} plus an election.
	 * @param formerMaster the master that went away
	 * @return the promoted replica
	 */
	public RedisNode awaitReplicaPromoted(RedisNode formerMaster) {
		List<ClusterNodeInfo> before = this.viewsBeforeKill.getOrDefault(formerMaster, this.lastAgreedView);
		String formerId = nodeId(formerMaster);
		ClusterNodeInfo former = before.stream()
			.filter((entry) -> entry.id().equals(formerId) && !entry.slots().isEmpty())
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException(formerMaster + " served no slots"));
		int slot = former.slots().get(0).start();
		List<RedisNode> candidates = runningNodes(before.stream().filter((entry) -> formerId.equals(entry.masterId())));
		RedisNode promoted = Await.forValue(this.timeout, "a replica of " + formerMaster + " to take over slot " + slot,
				() -> promotedCandidate(candidates, slot));
		awaitClusterOk();
		this.viewsBeforeKill.remove(formerMaster);
		return promoted;
	}

	private Outcome<RedisNode> promotedCandidate(List<RedisNode> candidates, int slot) {
		for (RedisNode candidate : candidates) {
			if (Nodes.isReachable(candidate) && "master".equals(candidate.role())) {
				List<ClusterNodeInfo> view = ClusterNodeInfo.parseAll(Nodes.probe(candidate, "CLUSTER", "NODES"));
				if (view.stream().anyMatch((entry) -> entry.isMyself() && entry.ownsSlot(slot))) {
					return Outcome.done(candidate);
				}
			}
		}
		return Outcome.notYet("no candidate among " + candidates + " serves slot " + slot);
	}

	/**
	 * Wait with the topology timeout until the cluster is ok everywhere (see
	 * {@link #awaitClusterOk(Duration)}).
	 */
	public void awaitClusterOk() {
		awaitClusterOk(this.timeout);
	}

	/**
	 * Wait until every reachable node reports {@code cluster_state:ok}, knows every other
	 * reachable node and flags none of them as failing, agrees with the others on roles
	 * and slot ownership, and every replica of a reachable master has its replication
	 * link up.
	 * @param timeout the maximum time to wait
	 */
	public void awaitClusterOk(Duration timeout) {
		ClusterAgreement agreement = new ClusterAgreement(this.nodes, this::nodeId);
		this.lastAgreedView = Await.forValue(timeout, "cluster_state:ok and one slot map on every reachable node",
				agreement::check);
	}

	/**
	 * Start a new empty master, introduce it with {@code CLUSTER MEET} and wait until
	 * every node knows it.
	 * @return the new master, serving no slots yet
	 */
	public RedisNode addEmptyMaster() {
		RedisNode seed = this.nodes.stream()
			.filter(Nodes::isReachable)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No reachable node to meet"));
		RedisNode node = this.launcher.start(this.nodeConfig.withName("cluster-" + (this.nodes.size() + 1)));
		try {
			String id = nodeId(node);
			node.command("CLUSTER", "MEET", seed.host(), Integer.toString(seed.port()));
			this.nodes.add(node);
			Await.until(this.timeout, "every node to know " + node, () -> unmetKnownEverywhere(id));
			awaitClusterOk();
			return node;
		}
		catch (RuntimeException ex) {
			this.nodes.remove(node);
			Nodes.stopAfterFailure(List.of(node), ex);
			throw ex;
		}
	}

	/**
	 * Move slots between masters with the same protocol as {@code redis-cli --cluster
	 * reshard}: {@code SETSLOT IMPORTING/MIGRATING}, {@code GETKEYSINSLOT} and
	 * {@code MIGRATE} in batches, then {@code SETSLOT NODE} on every master. Keys stay
	 * readable throughout (via {@code ASK} redirections) and after.
	 * @param from the master giving slots away
	 * @param to the master receiving them
	 * @param count how many slots to move (the lowest ones {@code from} serves)
	 * @return the slots that were moved
	 */
	public List<Integer> migrateSlots(RedisNode from, RedisNode to, int count) {
		String fromId = nodeId(from);
		List<Integer> slots = lowestSlotsOf(fromId, count);
		List<RedisNode> otherMasters = masters().stream().filter((node) -> node != from && node != to).toList();
		try (SlotMigration migration = new SlotMigration(from, fromId, to, nodeId(to), otherMasters)) {
			slots.forEach(migration::move);
		}
		awaitClusterOk();
		return slots;
	}

	private List<Integer> lowestSlotsOf(String masterId, int count) {
		ClusterNodeInfo master = clusterNodes().stream()
			.filter((entry) -> entry.id().equals(masterId) && entry.isMaster())
			.findFirst()
			.orElseThrow(() -> new IllegalArgumentException("Node " + masterId + " is not a master"));
		if (master.slotCount() < count) {
			throw new IllegalArgumentException(
					"Node " + masterId + " serves " + master.slotCount() + " slots, cannot move " + count);
		}
		List<Integer> slots = new ArrayList<>(count);
		for (SlotRange range : master.slots()) {
			for (int slot = range.start(); slot <= range.end() && slots.size() < count; slot++) {
				slots.add(slot);
			}
		}
		return slots;
	}

	@Override
	public void close() {
		Nodes.stopAll(List.copyOf(this.nodes));
	}

	private @Nullable String unmetKnownEverywhere(String id) {
		for (RedisNode node : this.nodes) {
			if (Nodes.isReachable(node)) {
				List<ClusterNodeInfo> view = ClusterNodeInfo.parseAll(Nodes.probe(node, "CLUSTER", "NODES"));
				boolean knows = view.stream().anyMatch((entry) -> entry.id().equals(id) && !entry.isInHandshake());
				if (!knows) {
					return node + " does not know " + id + " yet";
				}
			}
		}
		return null;
	}

	private Optional<RedisNode> nodeFor(ClusterNodeInfo entry) {
		return this.nodes.stream().filter((node) -> node.port() == entry.port() && node.isAlive()).findFirst();
	}

	private List<RedisNode> runningNodes(Stream<ClusterNodeInfo> entries) {
		return entries.map(this::nodeFor).flatMap(Optional::stream).toList();
	}

	@Override
	public String toString() {
		return "RedisClusterTopology" + this.nodes;
	}

	/**
	 * Builder for {@link RedisClusterTopology}.
	 */
	public static final class Builder {

		private int masters = 3;

		private int replicasPerMaster = 1;

		private Duration nodeTimeout = DEFAULT_NODE_TIMEOUT;

		private Duration timeout = Duration.ofSeconds(60);

		private String[] arguments = new String[0];

		private @Nullable RedisServerLauncher launcher;

		private @Nullable Tls tls;

		private Builder() {
		}

		/**
		 * Make every node accept TLS connections too ({@link RedisNode#tlsPort()}), with
		 * client certificates required and TLS between the nodes and to replicas
		 * ({@code tls-cluster}, {@code tls-replication}). A client over TLS then learns
		 * the nodes' TLS ports from the topology; the test's own commands and
		 * {@code redis-cli --cluster create} keep the plain ports.
		 * @param certificate the nodes' certificate, also presented to each other
		 * @param key its private key
		 * @param caCertificates the CA certificates the nodes trust
		 * @return this builder
		 */
		public Builder tls(Path certificate, Path key, Path caCertificates) {
			this.tls = new Tls(certificate, key, caCertificates);
			return this;
		}

		public Builder masters(int masters) {
			this.masters = masters;
			return this;
		}

		public Builder replicasPerMaster(int replicasPerMaster) {
			this.replicasPerMaster = replicasPerMaster;
			return this;
		}

		/**
		 * Set {@code cluster-node-timeout}: how long until an unreachable node is
		 * considered failing.
		 * @param nodeTimeout the node timeout
		 * @return this builder
		 */
		public Builder nodeTimeout(Duration nodeTimeout) {
			this.nodeTimeout = nodeTimeout;
			return this;
		}

		/**
		 * Set the bound of every wait (creation, failover, migration).
		 * @param timeout the timeout
		 * @return this builder
		 */
		public Builder timeout(Duration timeout) {
			this.timeout = timeout;
			return this;
		}

		/**
		 * Add {@code redis-server} arguments for every node, e.g.
		 * {@code "--cluster-require-full-coverage", "no"}.
		 * @param arguments the arguments
		 * @return this builder
		 */
		public Builder arguments(String... arguments) {
			this.arguments = arguments.clone();
			return this;
		}

		public Builder launcher(RedisServerLauncher launcher) {
			this.launcher = launcher;
			return this;
		}

		/**
		 * Start the nodes, create the cluster and wait until it is ok everywhere.
		 * @return the running cluster
		 */
		public RedisClusterTopology start() {
			RedisServerLauncher launcher = (this.launcher != null) ? this.launcher : new RedisServerLauncher();
			Path redisCli = RedisExecutables.redisCli(launcher.executable());
			RedisServerConfig nodeConfig = nodeConfig();
			List<RedisNode> started = new ArrayList<>();
			try {
				for (int i = 1; i <= this.masters * (1 + this.replicasPerMaster); i++) {
					started.add(launcher.start(nodeConfig.withName("cluster-" + i)));
				}
				createCluster(redisCli, started);
				RedisClusterTopology topology = new RedisClusterTopology(launcher, nodeConfig, this.timeout, started);
				topology.awaitClusterOk();
				return topology;
			}
			catch (RuntimeException ex) {
				Nodes.stopAfterFailure(started, ex);
				throw ex;
			}
		}

		private RedisServerConfig nodeConfig() {
			RedisServerConfig config = plainNodeConfig();
			Tls tls = this.tls;
			return (tls != null) ? config.withTls(tls.certificate(), tls.key(), tls.caCertificates(), true)
				.withArguments("--tls-cluster", "yes", "--tls-replication", "yes") : config;
		}

		private RedisServerConfig plainNodeConfig() {
			return RedisServerConfig.defaults()
				.withArguments("--cluster-enabled", "yes", "--cluster-node-timeout",
						Long.toString(this.nodeTimeout.toMillis()),
						// Let any replica take over, however long it was disconnected
						"--cluster-replica-validity-factor", "0",
						// Keep roles where the test put them: no automatic replica moves
						"--cluster-allow-replica-migration", "no")
				.withArguments(this.arguments);
		}

		private void createCluster(Path redisCli, List<RedisNode> nodes) {
			List<String> command = new ArrayList<>(List.of(redisCli.toString(), "--cluster", "create"));
			nodes.forEach((node) -> command.add(node.host() + ":" + node.port()));
			command.addAll(List.of("--cluster-replicas", Integer.toString(this.replicasPerMaster), "--cluster-yes"));
			Path output = null;
			try {
				output = Files.createTempFile(RedisProcessRegistry.workDirectory(), "redis-cli-", ".out");
				Process process = new ProcessBuilder(command).redirectErrorStream(true)
					.redirectOutput(output.toFile())
					.start();
				boolean finished = process.waitFor(this.timeout.toMillis(), TimeUnit.MILLISECONDS);
				if (!finished) {
					process.destroyForcibly();
				}
				if (!finished || process.exitValue() != 0) {
					throw new RedisServerException("'" + String.join(" ", command) + "' failed"
							+ (finished ? " with exit code " + process.exitValue() : " to finish in " + this.timeout)
							+ ":\n" + Files.readString(output, StandardCharsets.UTF_8));
				}
			}
			catch (IOException ex) {
				throw new RedisServerException("Cannot run " + command, ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new RedisServerException("Interrupted while creating the cluster", ex);
			}
			finally {
				deleteQuietly(output);
			}
		}

		private record Tls(Path certificate, Path key, Path caCertificates) {

		}

		private static void deleteQuietly(@Nullable Path file) {
			try {
				if (file != null) {
					Files.deleteIfExists(file);
				}
			}
			catch (IOException ex) {
				// A leftover temp file is harmless
			}
		}

	}

}
