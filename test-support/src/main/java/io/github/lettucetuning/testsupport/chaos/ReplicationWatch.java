package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.lettucetuning.testsupport.server.RedisInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RespClient;
import org.jspecify.annotations.Nullable;

/**
 * Samples {@code INFO replication} of every data node on a thread of its own during a
 * run, to tell which acknowledged writes had reached every replica and when a node was
 * promoted or demoted. Paused and dead nodes are skipped; a node that does not answer
 * within a short read timeout is left out of that sample.
 * <p>
 * The rule ({@link #confirmedAt(long)}) is deliberately conservative: take the first
 * sample that started after the write was acknowledged; for every node that was a master
 * in it, note its {@code master_repl_offset} and the replicas it listed. The write is
 * confirmed by the first sample from then on in which every one of those masters reports
 * every one of those replicas with an acknowledged {@code offset} at or past the noted
 * offset. A master without a replica, or one not sampled, never confirms.
 */
public final class ReplicationWatch implements AutoCloseable, Invariants.Replication {

	private static final Duration READ_TIMEOUT = Duration.ofMillis(200);

	private final List<RedisNode> nodes;

	private final Duration period;

	private final Map<RedisNode, RespClient> connections = new HashMap<>();

	private final List<Sample> samples = new ArrayList<>();

	private final List<Long> roleChanges = new ArrayList<>();

	private final Map<RedisNode, String> lastRoles = new HashMap<>();

	private final Thread thread;

	private volatile boolean closed;

	private ReplicationWatch(List<RedisNode> nodes, Duration period) {
		this.nodes = List.copyOf(nodes);
		this.period = period;
		this.thread = new Thread(this::run, "chaos-replication-watch");
		this.thread.setDaemon(true);
	}

	/**
	 * Start watching.
	 * @param dataNodes the nodes holding data (not the Sentinels)
	 * @param period how often to sample, e.g. 100 ms
	 * @return the running watch
	 */
	public static ReplicationWatch start(List<RedisNode> dataNodes, Duration period) {
		ReplicationWatch watch = new ReplicationWatch(dataNodes, period);
		watch.thread.start();
		return watch;
	}

	private void run() {
		while (!this.closed) {
			sampleOnce();
			try {
				Thread.sleep(this.period.toMillis());
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	private void sampleOnce() {
		long start = System.nanoTime();
		Map<Integer, NodeState> states = new HashMap<>();
		for (RedisNode node : this.nodes) {
			NodeState state = read(node);
			if (state != null) {
				states.put(node.port(), state);
				String previous = this.lastRoles.put(node, state.role());
				if (previous != null && !previous.equals(state.role())) {
					synchronized (this.roleChanges) {
						this.roleChanges.add(start);
					}
				}
			}
		}
		Sample sample = new Sample(start, System.nanoTime(), states);
		synchronized (this.samples) {
			this.samples.add(sample);
		}
	}

	private @Nullable NodeState read(RedisNode node) {
		if (!node.isAlive() || node.isPaused()) {
			return null;
		}
		RespClient connection = this.connections.get(node);
		try {
			if (connection == null) {
				connection = node.connect(READ_TIMEOUT);
				this.connections.put(node, connection);
			}
			return NodeState.parse(RedisInfo.parse(String.valueOf(connection.command("INFO", "replication"))));
		}
		catch (RuntimeException ex) {
			// Down, killed connection or too slow: left out of this sample, reconnect
			// next
			if (connection != null) {
				connection.close();
			}
			this.connections.remove(node);
			return null;
		}
	}

	@Override
	public @Nullable Long confirmedAt(long acknowledgedNanos) {
		List<Sample> samples = snapshot();
		int first = firstStartedAfter(samples, acknowledgedNanos);
		if (first == samples.size()) {
			return null;
		}
		Map<Integer, NodeState> targets = new HashMap<>();
		samples.get(first).states().forEach((port, state) -> {
			if ("master".equals(state.role())) {
				targets.put(port, state);
			}
		});
		if (targets.isEmpty() || targets.values().stream().anyMatch((master) -> master.replicaOffsets().isEmpty())) {
			return null;
		}
		for (int i = first; i < samples.size(); i++) {
			if (confirms(samples.get(i), targets)) {
				return samples.get(i).endNanos();
			}
		}
		return null;
	}

	// Samples are taken in order: binary search, since a run checks many writes
	private static int firstStartedAfter(List<Sample> samples, long nanos) {
		int low = 0;
		int high = samples.size();
		while (low < high) {
			int middle = (low + high) >>> 1;
			if (samples.get(middle).startNanos() - nanos <= 0) {
				low = middle + 1;
			}
			else {
				high = middle;
			}
		}
		return low;
	}

	private static boolean confirms(Sample sample, Map<Integer, NodeState> targets) {
		for (Map.Entry<Integer, NodeState> target : targets.entrySet()) {
			NodeState now = sample.states().get(target.getKey());
			if (now == null) {
				return false;
			}
			for (String replica : target.getValue().replicaOffsets().keySet()) {
				Long offset = now.replicaOffsets().get(replica);
				if (offset == null || offset < target.getValue().masterOffset()) {
					return false;
				}
			}
		}
		return true;
	}

	@Override
	public List<Long> roleChanges() {
		synchronized (this.roleChanges) {
			return List.copyOf(this.roleChanges);
		}
	}

	/**
	 * Return how many samples were taken so far.
	 * @return the number of samples
	 */
	public int sampleCount() {
		synchronized (this.samples) {
			return this.samples.size();
		}
	}

	private List<Sample> snapshot() {
		synchronized (this.samples) {
			return List.copyOf(this.samples);
		}
	}

	/**
	 * Stop sampling and wait for the thread; what was sampled stays available.
	 */
	@Override
	public void close() {
		this.closed = true;
		this.thread.interrupt();
		try {
			this.thread.join(Duration.ofSeconds(10).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		// The thread has ended: its connections are ours to close
		this.connections.values().forEach(RespClient::close);
		this.connections.clear();
	}

	/**
	 * One round of {@code INFO replication} over the data nodes.
	 *
	 * @param startNanos when the round started (every read is later)
	 * @param endNanos when the round ended (every read is earlier)
	 * @param states what each node that answered reported, by port
	 */
	private record Sample(long startNanos, long endNanos, Map<Integer, NodeState> states) {

	}

	/**
	 * What one node reported.
	 *
	 * @param role {@code master} or {@code slave}
	 * @param masterOffset its {@code master_repl_offset}
	 * @param replicaOffsets for a master, the acknowledged offset of each replica it
	 * lists, by {@code ip:port}
	 */
	private record NodeState(String role, long masterOffset, Map<String, Long> replicaOffsets) {

		static NodeState parse(Map<String, String> info) {
			Map<String, Long> replicas = new HashMap<>();
			info.forEach((field, value) -> {
				if (field.startsWith("slave") && value.contains("offset=")) {
					Map<String, String> parts = new HashMap<>();
					for (String part : value.split(",")) {
						int equals = part.indexOf('=');
						if (equals > 0) {
							parts.put(part.substring(0, equals), part.substring(equals + 1));
						}
					}
					replicas.put(parts.get("ip") + ":" + parts.get("port"), Long.parseLong(parts.get("offset")));
				}
			});
			return new NodeState(info.getOrDefault("role", "?"),
					Long.parseLong(info.getOrDefault("master_repl_offset", "0")), Map.copyOf(replicas));
		}

	}

}
