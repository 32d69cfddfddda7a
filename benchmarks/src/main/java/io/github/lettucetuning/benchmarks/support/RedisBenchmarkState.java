package io.github.lettucetuning.benchmarks.support;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerLauncher;
import io.github.lettucetuning.testsupport.server.RespClient;
import io.github.lettucetuning.testsupport.topology.ClusterNodeInfo;
import io.github.lettucetuning.testsupport.topology.ClusterSlots;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;

/**
 * Base of the end-to-end benchmarks: each trial (one per fork) starts its own
 * redis-server on a free loopback port, writes every key of the {@link KeySpace}, opens
 * the client under test and records server-side counters per iteration (see
 * {@link IterationRecorder}). Subclasses open and close their client; they declare no
 * {@code @Setup} or {@code @TearDown} methods of their own, so the order is fixed here.
 * <p>
 * A subclass whose {@link #cluster()} says so gets a Redis Cluster instead: six
 * redis-server processes on free loopback ports, three masters with one replica each
 * ({@link RedisClusterTopology}), the keys written to the masters that serve their slots,
 * and commands counted on the masters (see {@link ServerCounter}).
 */
@State(Scope.Benchmark)
public abstract class RedisBenchmarkState {

	private static final int MSET_CHUNK = 1000;

	private static final int SET_CHUNK = 1000;

	private @Nullable RedisNode node;

	private @Nullable RedisClusterTopology cluster;

	private @Nullable IterationRecorder recorder;

	private final OperationLatencies latencies = new OperationLatencies();

	private String benchmark = "";

	/**
	 * Start the server, write the keys and open the client.
	 * @param benchmark the JMH parameters of the trial
	 * @throws Exception if the client cannot be opened
	 */
	@Setup(Level.Trial)
	public final void startTrial(BenchmarkParams benchmark) throws Exception {
		this.benchmark = benchmark.getBenchmark();
		if (cluster()) {
			startCluster(benchmark);
			return;
		}
		RedisNode started = new RedisServerLauncher().start();
		this.node = started;
		try (RespClient admin = started.connect()) {
			for (String[] mset : KeySpace.msetCommands(MSET_CHUNK)) {
				admin.command(mset);
			}
		}
		this.recorder = new IterationRecorder(new ServerCounter(started), benchmark, SideFile.fromSystemProperty(),
				List.of(started.pid()), this.latencies);
		openClient(started.host(), started.port());
	}

	private void startCluster(BenchmarkParams benchmark) throws Exception {
		long start = System.nanoTime();
		RedisClusterTopology started = RedisClusterTopology.start();
		this.cluster = started;
		List<RedisNode> masters = started.masters();
		List<RedisNode> replicas = started.replicas();
		Map<RedisNode, Integer> keysPerMaster = writeKeys(started);
		System.err.printf(
				"[cluster] %d masters, %d replicas started and %d keys written in %.1f s; keys per master: %s%n",
				masters.size(), replicas.size(), KeySpace.SIZE, (System.nanoTime() - start) / 1e9,
				keysPerMaster.values());
		List<Long> pids = started.nodes().stream().map(RedisNode::pid).toList();
		this.recorder = new IterationRecorder(new ServerCounter(masters, replicas), benchmark,
				SideFile.fromSystemProperty(), pids, this.latencies);
		openClusterClient(started.nodes().stream().map((node) -> node.host() + ":" + node.port()).toList());
	}

	// MSET would fail with CROSSSLOT: each key goes to the master serving its slot,
	// pipelined in chunks.
	private static Map<RedisNode, Integer> writeKeys(RedisClusterTopology cluster) {
		List<ClusterNodeInfo> view = cluster.clusterNodes();
		Map<Integer, RedisNode> byPort = new HashMap<>();
		cluster.nodes().forEach((node) -> byPort.put(node.port(), node));
		Map<RedisNode, List<String>> keys = new LinkedHashMap<>();
		for (int i = 0; i < KeySpace.SIZE; i++) {
			String key = KeySpace.key(i);
			int slot = ClusterSlots.slotFor(key);
			ClusterNodeInfo owner = view.stream()
				.filter((entry) -> entry.isMaster() && entry.ownsSlot(slot))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("No master serves slot " + slot));
			keys.computeIfAbsent(byPort.get(owner.port()), (node) -> new ArrayList<>()).add(key);
		}
		Map<RedisNode, Integer> counts = new LinkedHashMap<>();
		keys.forEach((master, owned) -> {
			try (RespClient admin = master.connect()) {
				for (int from = 0; from < owned.size(); from += SET_CHUNK) {
					List<String> chunk = owned.subList(from, Math.min(owned.size(), from + SET_CHUNK));
					chunk.forEach((key) -> admin.send("SET", key, KeySpace.VALUE));
					chunk.forEach((key) -> admin.readReply());
				}
			}
			counts.put(master, owned.size());
		});
		return counts;
	}

	/**
	 * Take the counters at the start of an iteration.
	 * @param iteration the JMH parameters of the iteration
	 */
	@Setup(Level.Iteration)
	public final void beginIteration(IterationParams iteration) {
		IterationRecorder current = this.recorder;
		if (current != null) {
			current.begin(iteration);
		}
	}

	/**
	 * Take the counters at the end of an iteration and record the difference.
	 */
	@TearDown(Level.Iteration)
	public final void endIteration() {
		IterationRecorder current = this.recorder;
		if (current != null) {
			current.end();
		}
	}

	/**
	 * Close the client, then stop the server.
	 * @throws Exception if the client fails to close
	 */
	@TearDown(Level.Trial)
	public final void stopTrial() throws Exception {
		try {
			closeClient();
		}
		finally {
			IterationRecorder current = this.recorder;
			if (current != null) {
				current.close();
			}
			RedisNode started = this.node;
			if (started != null) {
				started.stop();
			}
			RedisClusterTopology startedCluster = this.cluster;
			if (startedCluster != null) {
				startedCluster.close();
			}
		}
	}

	/**
	 * Return where subclasses record the latency of each operation; iterations without
	 * records report none.
	 * @return the latencies of the trial
	 */
	protected final OperationLatencies latencies() {
		return this.latencies;
	}

	/**
	 * Return the benchmark method the trial runs, for a client that prepares what only
	 * some of them need.
	 * @return the method's name, without its class
	 */
	protected final String benchmarkMethod() {
		return this.benchmark.substring(this.benchmark.lastIndexOf('.') + 1);
	}

	/**
	 * Open the client under test.
	 * @param host the server's host
	 * @param port the server's port
	 * @throws Exception if the client cannot be opened
	 */
	protected abstract void openClient(String host, int port) throws Exception;

	/**
	 * Return whether the trial runs against a Redis Cluster instead of one server; read
	 * once JMH has set the benchmark's parameters.
	 * @return {@code false} unless a subclass says otherwise
	 */
	protected boolean cluster() {
		return false;
	}

	/**
	 * Open the client under test against a cluster.
	 * @param nodes every node as {@code host:port}, masters and replicas
	 * @throws Exception if the client cannot be opened
	 */
	protected void openClusterClient(List<String> nodes) throws Exception {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " runs against one server only");
	}

	/**
	 * Close the client under test.
	 * @throws Exception if the client fails to close
	 */
	protected abstract void closeClient() throws Exception;

}
