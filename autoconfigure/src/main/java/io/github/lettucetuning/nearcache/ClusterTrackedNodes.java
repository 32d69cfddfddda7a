package io.github.lettucetuning.nearcache;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.event.RedirectionEventSupport;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.Event;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * One connection to each master of a cluster, through a cluster connection of the near
 * cache's own, whose push listener hears every node.
 * <p>
 * Every master is tracked, also one without slots: a node that imports a slot serves its
 * keys (after {@code ASK}) before the topology says it owns the slot. The masters are
 * read again when the client's topology changes, and when a command of the application is
 * redirected to a node that is not tracked: until the topology shows that node, a value
 * it served could change without an invalidation reaching the near cache.
 */
final class ClusterTrackedNodes implements TrackedNodes {

	private final RedisClusterClient client;

	private final StatefulRedisClusterConnection<byte[], byte[]> connection;

	private final Disposable events;

	private volatile Set<StatefulRedisConnection<byte[], byte[]>> carriers = Set.of();

	private volatile Set<String> trackedAddresses = Set.of();

	// Nodes that served a redirected command: tracking is not on until they are tracked
	// too, or a topology refresh has been seen
	private volatile Set<String> required = Set.of();

	private ClusterTrackedNodes(RedisClusterClient client, StatefulRedisClusterConnection<byte[], byte[]> connection,
			Events events) {
		this.client = client;
		this.connection = connection;
		this.events = client.getResources().eventBus().get().subscribe((event) -> onEvent(event, events));
	}

	static ClusterTrackedNodes open(RedisClusterClient client, Events events) {
		StatefulRedisClusterConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
		try {
			connection.addListener((node, message) -> events.pushed(message));
			TrackedNodes.requireResp3(connection.sync().clientInfo());
			return new ClusterTrackedNodes(client, connection, events);
		}
		catch (RuntimeException ex) {
			connection.close();
			throw ex;
		}
	}

	@Override
	public CompletableFuture<List<StatefulRedisConnection<byte[], byte[]>>> masters() {
		List<RedisClusterNode> masters = masters(this.connection.getPartitions());
		Set<String> missing = new HashSet<>(this.required);
		missing.removeAll(addresses(masters));
		if (!missing.isEmpty()) {
			return CompletableFuture.failedFuture(new IllegalStateException(
					"the topology does not show yet the node(s) " + missing + " that served a redirected command"));
		}
		List<CompletableFuture<StatefulRedisConnection<byte[], byte[]>>> connecting = new ArrayList<>();
		for (RedisClusterNode master : masters) {
			connecting.add(this.connection.getConnectionAsync(master.getNodeId()));
		}
		// The carriers are known before tracking is sent, so that none of their
		// disconnects goes unheard from then on.
		return CompletableFuture.allOf(connecting.toArray(CompletableFuture[]::new)).thenApply((done) -> {
			List<StatefulRedisConnection<byte[], byte[]>> connections = connecting.stream()
				.map(CompletableFuture::join)
				.toList();
			this.carriers = Set.copyOf(connections);
			this.trackedAddresses = addresses(masters);
			return connections;
		});
	}

	private static List<RedisClusterNode> masters(Iterable<RedisClusterNode> nodes) {
		List<RedisClusterNode> masters = new ArrayList<>();
		for (RedisClusterNode node : nodes) {
			if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.is(RedisClusterNode.NodeFlag.FAIL)) {
				masters.add(node);
			}
		}
		return masters;
	}

	private static Set<String> addresses(List<RedisClusterNode> nodes) {
		return nodes.stream()
			.map((node) -> address(node.getUri().getHost(), node.getUri().getPort()))
			.collect(Collectors.toUnmodifiableSet());
	}

	// A write routed by slot may take a node connection that is not tracked, and one
	// that fails on a tracked one would need tracking issued again on that node alone.
	@Override
	public @Nullable StatefulRedisConnection<byte[], byte[]> writer() {
		return null;
	}

	@Override
	public boolean carries(RedisChannelHandler<?, ?> handler) {
		return this.carriers.contains(handler);
	}

	// Lettuce publishes a topology change before its connections see the new topology:
	// the event's own view decides, and the masters are connected on the next read.
	private void onEvent(Event event, Events events) {
		if (event instanceof ClusterTopologyChangedEvent changed) {
			this.required = Set.of();
			if (!addresses(masters(changed.after())).equals(this.trackedAddresses)) {
				events.mastersChanged();
			}
		}
		else if (event instanceof RedirectionEventSupport redirection) {
			String destination = destination(redirection);
			if (!this.trackedAddresses.contains(destination)) {
				Set<String> required = new HashSet<>(this.required);
				required.add(destination);
				this.required = Set.copyOf(required);
				events.mastersChanged();
				this.client.refreshPartitionsAsync();
			}
		}
	}

	// "MOVED 3999 127.0.0.1:6381" or "ASK 3999 127.0.0.1:6381"
	private static String destination(RedirectionEventSupport redirection) {
		String message = redirection.getMessage();
		return (message != null) ? message.substring(message.lastIndexOf(' ') + 1) : "";
	}

	private static String address(String host, int port) {
		return host + ":" + port;
	}

	@Override
	public void close() {
		this.events.dispose();
		this.connection.close();
	}

	@Override
	public void closeAsync() {
		this.events.dispose();
		this.connection.closeAsync();
	}

}
