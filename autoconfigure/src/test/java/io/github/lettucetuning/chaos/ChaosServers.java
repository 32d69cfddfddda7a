package io.github.lettucetuning.chaos;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.lettucetuning.testsupport.chaos.FaultInjector;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.ClusterNodeInfo;
import io.github.lettucetuning.testsupport.topology.ClusterSlots;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.github.lettucetuning.testsupport.topology.TopologyKind;
import io.lettuce.core.RedisURI;
import org.jspecify.annotations.Nullable;

/**
 * The servers a campaign runs against, as the campaign needs them: the Spring Boot
 * properties that point a client at them, a fault injector for them, and reads of what
 * they hold afterwards.
 */
abstract sealed class ChaosServers {

	private static final int BATCH = 500;

	static ChaosServers standalone(RedisStandalone redis) {
		return new Standalone(redis);
	}

	static ChaosServers sentinel(RedisSentinelTopology sentinel) {
		return new Sentinel(sentinel);
	}

	static ChaosServers cluster(RedisClusterTopology cluster) {
		return new Cluster(cluster);
	}

	abstract TopologyKind topology();

	/**
	 * Return the {@code spring.data.redis.*} properties that connect to the servers.
	 * @return the properties
	 */
	abstract String[] properties();

	abstract FaultInjector injector();

	/**
	 * Return what a plain Lettuce client connects with: one URI for a server or Sentinel,
	 * every node of a cluster.
	 * @return the URIs
	 */
	abstract List<RedisURI> clientUris();

	/**
	 * Return the nodes that hold data (masters and replicas), for replication tracking.
	 * @return the data nodes
	 */
	abstract List<RedisNode> dataNodes();

	/**
	 * Return every node a client may connect to (Sentinels included), for leak checks.
	 * @return the nodes
	 */
	abstract List<RedisNode> allNodes();

	/**
	 * Bring every node back and wait until the topology is whole again.
	 */
	abstract void recover();

	abstract void flush();

	/**
	 * Read what the servers hold for some keys, after the campaign.
	 * @param keys the keys
	 * @return each key's value, {@code null} where it does not exist
	 */
	abstract Map<String, @Nullable String> values(Collection<String> keys);

	// MGET in batches from one node
	static Map<String, @Nullable String> mget(RedisNode node, List<String> keys) {
		Map<String, @Nullable String> values = new LinkedHashMap<>();
		for (int from = 0; from < keys.size(); from += BATCH) {
			List<String> batch = keys.subList(from, Math.min(keys.size(), from + BATCH));
			List<String> command = new ArrayList<>(batch.size() + 1);
			command.add("MGET");
			command.addAll(batch);
			Object reply = node.command(command.toArray(String[]::new));
			List<?> replies = (reply instanceof List<?> list) ? list : List.of();
			for (int i = 0; i < batch.size(); i++) {
				Object value = (i < replies.size()) ? replies.get(i) : null;
				values.put(batch.get(i), (value != null) ? value.toString() : null);
			}
		}
		return values;
	}

	static String addresses(List<RedisNode> nodes) {
		return String.join(",", nodes.stream().map((node) -> node.host() + ":" + node.port()).toList());
	}

	private static final class Standalone extends ChaosServers {

		private final RedisStandalone redis;

		Standalone(RedisStandalone redis) {
			this.redis = redis;
		}

		@Override
		TopologyKind topology() {
			return TopologyKind.STANDALONE;
		}

		@Override
		String[] properties() {
			return new String[] { "spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port() };
		}

		@Override
		FaultInjector injector() {
			return FaultInjector.standalone(this.redis.node());
		}

		@Override
		List<RedisURI> clientUris() {
			return List.of(RedisURI.create(this.redis.host(), this.redis.port()));
		}

		@Override
		List<RedisNode> dataNodes() {
			return List.of(this.redis.node());
		}

		@Override
		List<RedisNode> allNodes() {
			return List.of(this.redis.node());
		}

		@Override
		void recover() {
			Faults.recover(this.redis.node());
		}

		@Override
		void flush() {
			this.redis.node().command("FLUSHALL");
		}

		@Override
		Map<String, @Nullable String> values(Collection<String> keys) {
			return mget(this.redis.node(), new ArrayList<>(keys));
		}

	}

	private static final class Sentinel extends ChaosServers {

		private final RedisSentinelTopology sentinel;

		Sentinel(RedisSentinelTopology sentinel) {
			this.sentinel = sentinel;
		}

		@Override
		TopologyKind topology() {
			return TopologyKind.SENTINEL;
		}

		@Override
		String[] properties() {
			return new String[] { "spring.data.redis.sentinel.master=" + this.sentinel.masterName(),
					"spring.data.redis.sentinel.nodes=" + addresses(this.sentinel.sentinels()) };
		}

		@Override
		FaultInjector injector() {
			return FaultInjector.sentinel(this.sentinel);
		}

		@Override
		List<RedisURI> clientUris() {
			List<RedisNode> sentinels = this.sentinel.sentinels();
			RedisURI.Builder builder = RedisURI.Builder.sentinel(sentinels.get(0).host(), sentinels.get(0).port(),
					this.sentinel.masterName());
			sentinels.stream().skip(1).forEach((node) -> builder.withSentinel(node.host(), node.port()));
			return List.of(builder.build());
		}

		@Override
		List<RedisNode> dataNodes() {
			return List.of(this.sentinel.master(), this.sentinel.replica());
		}

		@Override
		List<RedisNode> allNodes() {
			return this.sentinel.nodes();
		}

		// The campaign's failovers happen behind the topology's back: tell it which node
		// the Sentinels chose before waiting for the replica to catch up
		@Override
		void recover() {
			this.sentinel.nodes().forEach(Faults::recover);
			RedisNode known = this.sentinel.master();
			if (this.sentinel.currentMaster() != known) {
				this.sentinel.awaitFailover(known);
			}
			this.sentinel.awaitHealthy();
		}

		@Override
		void flush() {
			this.sentinel.currentMaster().command("FLUSHALL");
		}

		@Override
		Map<String, @Nullable String> values(Collection<String> keys) {
			return mget(this.sentinel.currentMaster(), new ArrayList<>(keys));
		}

	}

	private static final class Cluster extends ChaosServers {

		private final RedisClusterTopology cluster;

		Cluster(RedisClusterTopology cluster) {
			this.cluster = cluster;
		}

		@Override
		TopologyKind topology() {
			return TopologyKind.CLUSTER;
		}

		@Override
		String[] properties() {
			return new String[] { "spring.data.redis.cluster.nodes=" + addresses(this.cluster.nodes()) };
		}

		@Override
		FaultInjector injector() {
			return FaultInjector.cluster(this.cluster);
		}

		@Override
		List<RedisURI> clientUris() {
			return this.cluster.nodes().stream().map((node) -> RedisURI.create(node.host(), node.port())).toList();
		}

		@Override
		List<RedisNode> dataNodes() {
			return this.cluster.nodes();
		}

		@Override
		List<RedisNode> allNodes() {
			return this.cluster.nodes();
		}

		@Override
		void recover() {
			this.cluster.nodes().forEach(Faults::recover);
			this.cluster.awaitClusterOk();
		}

		@Override
		void flush() {
			for (RedisNode master : this.cluster.masters()) {
				master.command("FLUSHALL");
			}
		}

		// MGET needs its keys in one slot: one batch per slot, from the slot's master
		@Override
		Map<String, @Nullable String> values(Collection<String> keys) {
			Map<Integer, List<String>> bySlot = new HashMap<>();
			for (String key : keys) {
				bySlot.computeIfAbsent(ClusterSlots.slotFor(key), (slot) -> new ArrayList<>()).add(key);
			}
			Function<Integer, RedisNode> owner = owners();
			Map<String, @Nullable String> values = new LinkedHashMap<>();
			bySlot.forEach((slot, slotKeys) -> values.putAll(mget(owner.apply(slot), slotKeys)));
			return values;
		}

		private Function<Integer, RedisNode> owners() {
			List<ClusterNodeInfo> view = this.cluster.clusterNodes();
			Map<String, RedisNode> byAddress = new HashMap<>();
			for (RedisNode node : this.cluster.nodes()) {
				byAddress.put(node.host() + ":" + node.port(), node);
			}
			return (slot) -> view.stream()
				.filter((entry) -> entry.isMaster() && !entry.isFailing() && entry.ownsSlot(slot))
				.map((entry) -> byAddress.get(entry.host() + ":" + entry.port()))
				.filter((node) -> node != null)
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("No master serves slot " + slot));
		}

	}

}
