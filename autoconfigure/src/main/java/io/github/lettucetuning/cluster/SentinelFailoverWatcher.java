package io.github.lettucetuning.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Moves connections to the new master as soon as Sentinel announces a failover. Listens
 * to {@code +switch-master} on every Sentinel and, for the watched master, closes the
 * channels to the former master so that Lettuce reconnects and resolves the new master
 * through Sentinel.
 * <p>
 * Without it, a connection defined through Sentinel (no {@code readFrom}) asks Sentinel
 * only when it reconnects, so it stays on the former master until that server drops it:
 * writes go to a master that is being replaced, and once the former master has become a
 * replica without closing its clients, every write fails with {@code READONLY}.
 *
 * @since 0.1.0
 */
// Works around Lettuce asking Sentinel for the master only when it reconnects:
// docs/upstream.md#sentinel-failover-watcher
public final class SentinelFailoverWatcher implements AutoCloseable {

	/**
	 * The Sentinel channel announcing a new master:
	 * {@code <master name> <old ip> <old port> <new ip> <new port>}.
	 */
	public static final String SWITCH_MASTER_CHANNEL = "+switch-master";

	private static final Log logger = LogFactory.getLog(SentinelFailoverWatcher.class);

	private final RedisClient client;

	private final String masterName;

	private final List<RedisURI> sentinels;

	private final BiConsumer<String, Integer> onSwitch;

	private final List<StatefulRedisPubSubConnection<String, String>> connections = new CopyOnWriteArrayList<>();

	private volatile boolean closed;

	/**
	 * Create a watcher that closes the tracked channels to the former master.
	 * @param client the client to subscribe with (owned by the caller)
	 * @param masterName the Sentinel master name to watch
	 * @param sentinels the Sentinels
	 * @param channels the tracked channels of the application's connections
	 */
	public SentinelFailoverWatcher(RedisClient client, String masterName, List<RedisURI> sentinels,
			ChannelTracker channels) {
		this(client, masterName, sentinels, (host, port) -> {
			// Every Sentinel announces the switch: only the first finds connections to
			// close
			int closed = channels.closeChannelsTo(host, port);
			if (closed > 0) {
				logger.info("Sentinel switched master '" + masterName + "' away from " + host + ":" + port + "; closed "
						+ closed + " connection(s) to it so that they reconnect to the new master");
			}
		});
	}

	SentinelFailoverWatcher(RedisClient client, String masterName, List<RedisURI> sentinels,
			BiConsumer<String, Integer> onSwitch) {
		this.client = client;
		this.masterName = masterName;
		this.sentinels = List.copyOf(sentinels);
		this.onSwitch = onSwitch;
	}

	/**
	 * Subscribe to every Sentinel, without waiting: an unreachable Sentinel is logged and
	 * skipped, a lost subscription is restored by Lettuce when it reconnects.
	 * @return completes when every subscription attempt has finished
	 */
	public CompletableFuture<Void> start() {
		List<CompletableFuture<?>> subscriptions = new ArrayList<>();
		for (RedisURI sentinel : this.sentinels) {
			subscriptions.add(subscribe(sentinel));
		}
		return CompletableFuture.allOf(subscriptions.toArray(CompletableFuture[]::new));
	}

	private CompletableFuture<?> subscribe(RedisURI sentinel) {
		return this.client.connectPubSubAsync(StringCodec.UTF8, sentinel).thenCompose((connection) -> {
			if (this.closed) {
				return connection.closeAsync();
			}
			this.connections.add(connection);
			connection.addListener(new RedisPubSubAdapter<>() {

				@Override
				public void message(String channel, String message) {
					onMessage(channel, message);
				}

			});
			return connection.async().subscribe(SWITCH_MASTER_CHANNEL);
		}).exceptionally((ex) -> {
			logger.info("Cannot watch Sentinel " + sentinel.getHost() + ":" + sentinel.getPort() + " for failovers of '"
					+ this.masterName + "': " + ex.getMessage());
			return null;
		}).toCompletableFuture();
	}

	void onMessage(String channel, String message) {
		if (!SWITCH_MASTER_CHANNEL.equals(channel)) {
			return;
		}
		String[] parts = message.split(" ");
		if (parts.length < 5 || !this.masterName.equals(parts[0])) {
			return;
		}
		try {
			this.onSwitch.accept(parts[1], Integer.parseInt(parts[2]));
		}
		catch (NumberFormatException ex) {
			logger.debug("Ignoring malformed " + SWITCH_MASTER_CHANNEL + " message: " + message);
		}
	}

	/**
	 * Return the number of Sentinels currently subscribed to.
	 * @return the number of subscriptions
	 */
	public int subscriptions() {
		return (int) this.connections.stream().filter(StatefulRedisPubSubConnection::isOpen).count();
	}

	@Override
	public void close() {
		this.closed = true;
		this.connections.forEach(StatefulRedisPubSubConnection::close);
		this.connections.clear();
	}

}
