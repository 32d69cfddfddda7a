package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.lettucetuning.testsupport.server.Await;
import io.github.lettucetuning.testsupport.server.RedisInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RespErrorException;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import io.github.lettucetuning.testsupport.topology.TopologyKind;
import org.jspecify.annotations.Nullable;

/**
 * A master, a replica and Sentinels. Reconciling does what Sentinel does when it
 * reconfigures an instance, without its ten-second delay for a returning master.
 */
final class SentinelFaults extends ReplicatedTopologyFaults {

	private static final Duration PROBE = Duration.ofMillis(500);

	private static final Duration FAILOVER_ACCEPT_BOUND = Duration.ofSeconds(10);

	private final RedisSentinelTopology topology;

	SentinelFaults(RedisSentinelTopology topology) {
		super(TopologyKind.SENTINEL, List.of(topology.master(), topology.replica()), List.of(topology.master()),
				SentinelFaults::role);
		this.topology = topology;
	}

	@Override
	public @Nullable String reconcile() {
		long deadline = System.nanoTime() + RECONCILE_BOUND.toNanos();
		String state = "never checked";
		while (System.nanoTime() - deadline < 0) {
			try {
				state = reconcileOnce();
				if (state == null) {
					return null;
				}
			}
			catch (RuntimeException ex) {
				state = ex.getClass().getSimpleName() + ": " + ex.getMessage();
			}
			Await.sleep(Duration.ofMillis(100));
		}
		return "heal incomplete: " + state;
	}

	private @Nullable String reconcileOnce() {
		RedisNode master = agreedMaster();
		if (master == null) {
			return "the Sentinels do not agree on a reachable master";
		}
		seen(master, true);
		String unmet = null;
		for (RedisNode node : dataNodes()) {
			if (node == master || !TopologyFaults.reachable(node)) {
				continue;
			}
			// A short read timeout: a blackholed node looks reachable but does not answer
			Map<String, String> replication = RedisInfo
				.parse(String.valueOf(node.command(PROBE, "INFO", "replication")));
			boolean follows = "slave".equals(replication.get("role"))
					&& Integer.toString(master.port()).equals(replication.get("master_port"));
			if (!follows) {
				demote(node, master);
				unmet = node + " was " + replication.get("role") + " of " + replication.get("master_port");
			}
			else if (!"up".equals(replication.get("master_link_status"))) {
				unmet = node + " has master_link_status:" + replication.get("master_link_status");
			}
			seen(node, false);
		}
		return unmet;
	}

	// Sentinel kills the clients of an instance it reconfigures: a connection left on a
	// demoted master would get READONLY for ever
	private static void demote(RedisNode node, RedisNode master) {
		node.command(PROBE, "REPLICAOF", master.host(), Integer.toString(master.port()));
		node.command(PROBE, "CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
		node.command(PROBE, "CLIENT", "KILL", "TYPE", "pubsub");
	}

	/**
	 * Return the master every reachable Sentinel reports, if it is reachable and has the
	 * master role.
	 */
	private @Nullable RedisNode agreedMaster() {
		Integer agreed = null;
		for (RedisNode sentinel : this.topology.sentinels()) {
			if (!TopologyFaults.reachable(sentinel)) {
				continue;
			}
			Object address = sentinel.command(PROBE, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", this.topology.masterName());
			if (!(address instanceof List<?> hostAndPort) || hostAndPort.size() != 2) {
				return null;
			}
			int port = Integer.parseInt(String.valueOf(hostAndPort.get(1)));
			if (agreed != null && agreed != port) {
				return null;
			}
			agreed = port;
		}
		RedisNode master = (agreed != null) ? dataNodeAt(agreed) : null;
		return (master != null && TopologyFaults.reachable(master) && "master".equals(role(master))) ? master : null;
	}

	@Override
	public String failover(ScheduledFault fault) {
		RedisNode former = agreedMaster();
		if (former == null) {
			throw new NotInjectable("the Sentinels do not agree on a reachable master");
		}
		RedisNode sentinel = this.topology.sentinels()
			.stream()
			.filter(TopologyFaults::reachable)
			.findFirst()
			.orElseThrow(() -> new NotInjectable("no reachable Sentinel"));
		requestFailover(sentinel);
		RedisNode promoted = awaitNewMaster(former);
		String unreconciled = reconcile();
		String failedOver = (promoted != null) ? "failed over from " + former.port() + " to " + promoted.port()
				: "SENTINEL FAILOVER accepted but the Sentinels agreed on no new master within "
						+ RECONCILE_BOUND.toMillis() + " ms";
		return failedOver + ((unreconciled != null) ? ", " + unreconciled : "");
	}

	// NOGOODSLAVE and INPROG are transient: a replica not yet seen healthy, a failover
	// still finishing
	private void requestFailover(RedisNode sentinel) {
		long deadline = System.nanoTime() + FAILOVER_ACCEPT_BOUND.toNanos();
		while (true) {
			try {
				sentinel.command(PROBE, "SENTINEL", "FAILOVER", this.topology.masterName());
				return;
			}
			catch (RespErrorException ex) {
				boolean transientError = ex.getMessage().contains("NOGOODSLAVE") || ex.getMessage().contains("INPROG");
				if (!transientError || System.nanoTime() - deadline > 0) {
					throw new NotInjectable("SENTINEL FAILOVER refused: " + ex.getMessage());
				}
			}
			Await.sleep(Duration.ofMillis(200));
		}
	}

	private @Nullable RedisNode awaitNewMaster(RedisNode former) {
		long deadline = System.nanoTime() + RECONCILE_BOUND.toNanos();
		while (System.nanoTime() - deadline < 0) {
			try {
				RedisNode master = agreedMaster();
				if (master != null && master != former) {
					return master;
				}
			}
			catch (RuntimeException ex) {
				// A Sentinel busy failing over: ask again
			}
			Await.sleep(Duration.ofMillis(100));
		}
		return null;
	}

	@Override
	public String reshard(ScheduledFault fault) {
		throw new NotInjectable("not on a Sentinel topology");
	}

	@Override
	public RedisNode laggingReplica(ScheduledFault fault) {
		RedisNode master = agreedMaster();
		if (master == null) {
			throw new NotInjectable("the Sentinels do not agree on a reachable master");
		}
		return dataNodes().stream()
			.filter((node) -> node != master && TopologyFaults.reachable(node))
			.findFirst()
			.orElseThrow(() -> new NotInjectable("no reachable replica"));
	}

	private static String role(RedisNode node) {
		Object role = node.command(PROBE, "ROLE");
		return (role instanceof List<?> parts && !parts.isEmpty()) ? String.valueOf(parts.get(0))
				: String.valueOf(role);
	}

}
