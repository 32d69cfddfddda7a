package io.github.lettucetuning.testsupport.topology;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.lettucetuning.testsupport.server.Await;
import io.github.lettucetuning.testsupport.server.Await.Outcome;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.server.RedisServerException;
import io.github.lettucetuning.testsupport.server.RedisServerLauncher;
import org.jspecify.annotations.Nullable;

/**
 * A master, one replica and (by default) three Sentinels monitoring them with a quorum of
 * two. {@link #start()} returns once the replica is in sync and every Sentinel sees the
 * master, the replica and the other Sentinels.
 * <p>
 * {@link #master()} and {@link #replica()} are this topology's own view, updated by
 * {@link #failover()} and {@link #awaitFailover(RedisNode)}; {@link #currentMaster()}
 * asks a Sentinel.
 * <p>
 * With {@link Builder#tls(Path, Path, Path)}, every process also accepts TLS connections,
 * replicates and is monitored over TLS: the Sentinels then hand out the data nodes' TLS
 * ports, and clients must connect to the Sentinels' TLS ports.
 */
public final class RedisSentinelTopology implements RedisTopology {

	public static final String DEFAULT_MASTER_NAME = "mymaster";

	public static final Duration DEFAULT_DOWN_AFTER = Duration.ofMillis(1000);

	public static final Duration DEFAULT_FAILOVER_TIMEOUT = Duration.ofMillis(5000);

	private final String masterName;

	private final List<RedisNode> dataNodes;

	private final List<RedisNode> sentinels;

	private final Duration timeout;

	private final boolean tls;

	private volatile RedisNode master;

	private RedisSentinelTopology(String masterName, RedisNode master, RedisNode replica, List<RedisNode> sentinels,
			Duration timeout, boolean tls) {
		this.masterName = masterName;
		this.dataNodes = List.of(master, replica);
		this.sentinels = List.copyOf(sentinels);
		this.timeout = timeout;
		this.tls = tls;
		this.master = master;
	}

	/**
	 * Start a topology with the defaults.
	 * @return the running topology
	 */
	public static RedisSentinelTopology start() {
		return builder().start();
	}

	public static Builder builder() {
		return new Builder();
	}

	public String masterName() {
		return this.masterName;
	}

	/**
	 * Return the data node this topology considers the master.
	 * @return the master
	 */
	public RedisNode master() {
		return this.master;
	}

	/**
	 * Return the data node this topology considers the replica.
	 * @return the replica
	 */
	public RedisNode replica() {
		RedisNode current = this.master;
		return this.dataNodes.stream().filter((node) -> node != current).findFirst().orElseThrow();
	}

	/**
	 * Return the master and the replica, whichever is which now.
	 * @return the data nodes
	 */
	public List<RedisNode> dataNodes() {
		return this.dataNodes;
	}

	/**
	 * Return the Sentinels.
	 * @return the Sentinels, in start order
	 */
	public List<RedisNode> sentinels() {
		return this.sentinels;
	}

	/**
	 * Return a Sentinel URI for clients, e.g.
	 * {@code redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3#mymaster}.
	 * @return the URI
	 */
	public String sentinelUri() {
		return this.sentinels.stream()
			.map((sentinel) -> sentinel.host() + ":" + sentinel.port())
			.collect(Collectors.joining(",", "redis-sentinel://", "#" + this.masterName));
	}

	/**
	 * Return the Sentinels' addresses as {@code spring.data.redis.sentinel.nodes} takes
	 * them: their TLS ports when the topology runs TLS.
	 * @return the comma-separated {@code host:port} list
	 */
	public String sentinelNodes() {
		return this.sentinels.stream()
			.map((sentinel) -> sentinel.host() + ":" + clientPort(sentinel))
			.collect(Collectors.joining(","));
	}

	/**
	 * Return the port a node serves the topology on: the one the Sentinels hand out and
	 * replicas replicate from, its TLS port when the topology runs TLS.
	 * @param node a node of this topology
	 * @return the port
	 */
	public int clientPort(RedisNode node) {
		return this.tls ? node.tlsPort() : node.port();
	}

	@Override
	public List<RedisNode> nodes() {
		return Stream.concat(this.dataNodes.stream(), this.sentinels.stream()).toList();
	}

	/**
	 * Ask the first reachable Sentinel for the master address
	 * ({@code SENTINEL GET-MASTER-ADDR-BY-NAME}).
	 * @return the node the Sentinels consider the master
	 */
	public RedisNode currentMaster() {
		RuntimeException lastFailure = null;
		for (RedisNode sentinel : this.sentinels) {
			if (Nodes.isReachable(sentinel)) {
				try {
					return dataNodeAt(masterPortSeenBy(sentinel));
				}
				catch (RuntimeException ex) {
					lastFailure = ex;
				}
			}
		}
		throw new RedisServerException("No Sentinel could tell the master of " + this.masterName, lastFailure);
	}

	/**
	 * Trigger {@code SENTINEL FAILOVER} and wait until every Sentinel reports the new
	 * master, it has the master role and the former master replicates from it.
	 * @return the new master
	 */
	public RedisNode failover() {
		RedisNode formerMaster = currentMaster();
		RedisNode sentinel = this.sentinels.stream()
			.filter(Nodes::isReachable)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No reachable Sentinel"));
		// NOGOODSLAVE/INPROG are transient right after start or after a previous failover
		Await.until(this.timeout, "Sentinel to accept SENTINEL FAILOVER " + this.masterName,
				() -> "OK".equals(sentinel.command("SENTINEL", "FAILOVER", this.masterName)) ? null : "not OK");
		return awaitFailover(formerMaster);
	}

	/**
	 * Wait until the Sentinels replaced the given master, e.g. after it was killed or
	 * paused for longer than {@code down-after-milliseconds}.
	 * @param formerMaster the master being replaced
	 * @return the new master
	 */
	public RedisNode awaitFailover(RedisNode formerMaster) {
		RedisNode promoted = Await.forValue(this.timeout, "Sentinels to agree on a master other than " + formerMaster,
				() -> agreedNewMaster(formerMaster));
		this.master = promoted;
		if (Nodes.isReachable(formerMaster)) {
			// Sentinel converts a returning old master only after ~10 s; do it right away
			formerMaster.command("REPLICAOF", promoted.host(), Integer.toString(clientPort(promoted)));
			awaitInSync(formerMaster, clientPort(promoted), this.timeout);
		}
		return promoted;
	}

	/**
	 * Wait until the replica is in sync and every reachable Sentinel sees the master, the
	 * replica and all other Sentinels.
	 */
	public void awaitHealthy() {
		RedisNode currentMaster = this.master;
		RedisNode currentReplica = replica();
		awaitInSync(currentReplica, clientPort(currentMaster), this.timeout);
		Await.until(this.timeout,
				"every Sentinel to see " + currentMaster + ", " + currentReplica + " and the other Sentinels",
				() -> unmetSentinelView(currentMaster, currentReplica));
	}

	@Override
	public void close() {
		// Sentinels first, so they do not start a failover while the data nodes go away
		Nodes.stopAll(Stream.concat(this.sentinels.stream(), this.dataNodes.stream()).toList());
	}

	private Outcome<RedisNode> agreedNewMaster(RedisNode formerMaster) {
		Integer agreedPort = null;
		for (RedisNode sentinel : this.sentinels) {
			if (!Nodes.isReachable(sentinel)) {
				continue;
			}
			int port = masterPortSeenBy(sentinel);
			if (port == clientPort(formerMaster) || (agreedPort != null && agreedPort != port)) {
				return Outcome.notYet(sentinel + " reports master port " + port);
			}
			agreedPort = port;
		}
		if (agreedPort == null) {
			return Outcome.notYet("no reachable Sentinel");
		}
		RedisNode candidate = dataNodeAt(agreedPort);
		String role = candidate.role();
		return "master".equals(role) ? Outcome.done(candidate) : Outcome.notYet(candidate + " has role " + role);
	}

	private @Nullable String unmetSentinelView(RedisNode currentMaster, RedisNode currentReplica) {
		for (RedisNode sentinel : this.sentinels) {
			if (!Nodes.isReachable(sentinel)) {
				continue;
			}
			Map<String, String> state = Nodes
				.flatMap(sentinel.command(Nodes.PROBE_TIMEOUT, "SENTINEL", "MASTER", this.masterName));
			boolean seesMaster = Integer.toString(clientPort(currentMaster)).equals(state.get("port"))
					&& "master".equals(state.get("flags"));
			boolean seesSentinels = Integer.toString(this.sentinels.size() - 1)
				.equals(state.get("num-other-sentinels"));
			if (!seesMaster || !seesSentinels || !seesHealthyReplica(sentinel, currentReplica)) {
				return sentinel + " sees " + state;
			}
		}
		return null;
	}

	private boolean seesHealthyReplica(RedisNode sentinel, RedisNode currentReplica) {
		Object replicas = sentinel.command(Nodes.PROBE_TIMEOUT, "SENTINEL", "REPLICAS", this.masterName);
		if (!(replicas instanceof List<?> list)) {
			return false;
		}
		return list.stream()
			.map(Nodes::flatMap)
			.anyMatch((replica) -> Integer.toString(clientPort(currentReplica)).equals(replica.get("port"))
					&& "slave".equals(replica.get("flags")));
	}

	private static void awaitInSync(RedisNode replica, int masterPort, Duration timeout) {
		Await.until(timeout, replica + " to be in sync with the master on port " + masterPort, () -> {
			Map<String, String> replication = replica.info("replication");
			boolean inSync = "slave".equals(replication.get("role"))
					&& Integer.toString(masterPort).equals(replication.get("master_port"))
					&& "up".equals(replication.get("master_link_status"));
			return inSync ? null : replication.toString();
		});
	}

	private int masterPortSeenBy(RedisNode sentinel) {
		Object address = sentinel.command(Nodes.PROBE_TIMEOUT, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", this.masterName);
		if (address instanceof List<?> hostAndPort && hostAndPort.size() == 2) {
			return Integer.parseInt(String.valueOf(hostAndPort.get(1)));
		}
		throw new RedisServerException(sentinel + " does not know master " + this.masterName + ": " + address);
	}

	private RedisNode dataNodeAt(int port) {
		return this.dataNodes.stream()
			.filter((node) -> clientPort(node) == port)
			.findFirst()
			.orElseThrow(() -> new RedisServerException("No data node of this topology listens on port " + port));
	}

	@Override
	public String toString() {
		return "RedisSentinelTopology[" + this.masterName + ", master=" + this.master + ", sentinels=" + this.sentinels
				+ "]";
	}

	/**
	 * Builder for {@link RedisSentinelTopology}.
	 */
	public static final class Builder {

		private String masterName = DEFAULT_MASTER_NAME;

		private Duration downAfter = DEFAULT_DOWN_AFTER;

		private Duration failoverTimeout = DEFAULT_FAILOVER_TIMEOUT;

		private int sentinelCount = 3;

		private int quorum = 2;

		private Duration timeout = Duration.ofSeconds(60);

		private @Nullable RedisServerLauncher launcher;

		private @Nullable Tls tls;

		private Builder() {
		}

		/**
		 * Make every process accept TLS connections too ({@link RedisNode#tlsPort()}),
		 * with a certificate the given CA certificates vouch for and client certificates
		 * required, and replicate and monitor over TLS ({@code tls-replication}). The
		 * plain ports stay open for the test's own commands.
		 * @param certificate each process's certificate (PEM)
		 * @param key its private key (PEM)
		 * @param caCertificates the CA certificates every process trusts (PEM)
		 * @return this builder
		 */
		public Builder tls(Path certificate, Path key, Path caCertificates) {
			this.tls = new Tls(certificate, key, caCertificates);
			return this;
		}

		public Builder masterName(String masterName) {
			this.masterName = masterName;
			return this;
		}

		public Builder downAfter(Duration downAfter) {
			this.downAfter = downAfter;
			return this;
		}

		public Builder failoverTimeout(Duration failoverTimeout) {
			this.failoverTimeout = failoverTimeout;
			return this;
		}

		public Builder sentinels(int count) {
			this.sentinelCount = count;
			return this;
		}

		public Builder quorum(int quorum) {
			this.quorum = quorum;
			return this;
		}

		/**
		 * Set the bound of every wait (start-up, failover).
		 * @param timeout the timeout
		 * @return this builder
		 */
		public Builder timeout(Duration timeout) {
			this.timeout = timeout;
			return this;
		}

		public Builder launcher(RedisServerLauncher launcher) {
			this.launcher = launcher;
			return this;
		}

		/**
		 * Start the processes and wait until the topology is healthy.
		 * @return the running topology
		 */
		public RedisSentinelTopology start() {
			RedisServerLauncher launcher = (this.launcher != null) ? this.launcher : new RedisServerLauncher();
			List<RedisNode> started = new ArrayList<>();
			try {
				RedisNode master = launcher.start(withTls(RedisServerConfig.defaults().withName("sentinel-master")));
				started.add(master);
				int masterPort = (this.tls != null) ? master.tlsPort() : master.port();
				RedisNode replica = launcher.start(withTls(RedisServerConfig.defaults()
					.withName("sentinel-replica")
					.withDirective("replicaof", master.host(), Integer.toString(masterPort))));
				started.add(replica);
				// Sentinels discover replicas from the master's INFO: let them find it at
				// once
				awaitInSync(replica, masterPort, this.timeout);
				List<RedisNode> sentinels = new ArrayList<>();
				for (int i = 1; i <= this.sentinelCount; i++) {
					RedisNode sentinel = launcher.start(withTls(sentinelConfig(i, master.host(), masterPort)));
					started.add(sentinel);
					sentinels.add(sentinel);
				}
				RedisSentinelTopology topology = new RedisSentinelTopology(this.masterName, master, replica, sentinels,
						this.timeout, this.tls != null);
				topology.awaitHealthy();
				return topology;
			}
			catch (RuntimeException ex) {
				Nodes.stopAfterFailure(started, ex);
				throw ex;
			}
		}

		private RedisServerConfig withTls(RedisServerConfig config) {
			Tls tls = this.tls;
			return (tls != null) ? config.withTls(tls.certificate(), tls.key(), tls.caCertificates(), true)
				.withDirective("tls-replication", "yes") : config;
		}

		private RedisServerConfig sentinelConfig(int index, String masterHost, int masterPort) {
			return RedisServerConfig.defaults()
				.withName("sentinel-" + index)
				.withSentinel(true)
				.withDirective("sentinel", "monitor", this.masterName, masterHost, Integer.toString(masterPort),
						Integer.toString(this.quorum))
				.withDirective("sentinel", "down-after-milliseconds", this.masterName,
						Long.toString(this.downAfter.toMillis()))
				.withDirective("sentinel", "failover-timeout", this.masterName,
						Long.toString(this.failoverTimeout.toMillis()));
		}

		private record Tls(Path certificate, Path key, Path caCertificates) {

		}

	}

}
