package io.github.lettucetuning.resilience;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.RedisPubSubListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Tells when a Pub/Sub connection comes back from a disconnect without the subscriptions
 * it had: a listener that would otherwise stop receiving in silence.
 * <p>
 * Lettuce subscribes a reconnected Pub/Sub connection again by itself, but only logs a
 * refused subscription (an ACL that no longer allows the channel) and drops any other
 * failure, while Spring Data's listener container, subscribed once, never hears of it.
 * The watch follows each connection it is given: the channels and patterns the server
 * confirmed, and after a disconnect, which of them the server has confirmed again. Those
 * not confirmed within the restore timeout after the reconnect are reported as not
 * restored: a WARN log naming them, a count of subscriptions lost since startup, and the
 * list of those not restored now (for meters, health and the endpoint). A confirmation
 * that comes later still restores them, with an INFO log.
 * <p>
 * It only listens: Lettuce's callbacks run on the connection's event loop and the check
 * runs once per reconnect on the client's event executors.
 *
 * @since 0.1.0
 */
// Works around Lettuce only logging a refused re-subscription:
// docs/upstream.md#re-subscriptions-lettuce-only-logs
public final class SubscriptionWatch {

	/**
	 * The default time a reconnected Pub/Sub connection has to restore its subscriptions.
	 */
	public static final Duration DEFAULT_RESTORE_TIMEOUT = Duration.ofSeconds(5);

	private static final Log logger = LogFactory.getLog(SubscriptionWatch.class);

	private final Duration restoreTimeout;

	private final Set<Watched> watched = ConcurrentHashMap.newKeySet();

	private final AtomicLong lost = new AtomicLong();

	/**
	 * Create a watch with the {@link #DEFAULT_RESTORE_TIMEOUT default restore timeout}.
	 */
	public SubscriptionWatch() {
		this(DEFAULT_RESTORE_TIMEOUT);
	}

	/**
	 * Create a watch.
	 * @param restoreTimeout how long a reconnected connection has to restore its
	 * subscriptions before they are reported as not restored
	 */
	public SubscriptionWatch(Duration restoreTimeout) {
		if (restoreTimeout.isNegative() || restoreTimeout.isZero()) {
			throw new IllegalArgumentException("Restore timeout must be positive, not " + restoreTimeout);
		}
		this.restoreTimeout = restoreTimeout;
	}

	/**
	 * Return how long a reconnected connection has to restore its subscriptions.
	 * @return the restore timeout
	 */
	public Duration restoreTimeout() {
		return this.restoreTimeout;
	}

	/**
	 * Start following a Pub/Sub connection, before anything subscribes on it.
	 * @param connection the connection
	 * @return what stops following it, to call once its subscriptions are closed
	 */
	public Registration watch(StatefulRedisPubSubConnection<byte[], byte[]> connection) {
		Watched watched = new Watched(connection);
		this.watched.add(watched);
		connection.addListener((RedisPubSubListener<byte[], byte[]>) watched);
		// Every Lettuce connection is a RedisChannelHandler; a connection of another kind
		// (a test double) tells no disconnects, so nothing is ever reported for it.
		if (connection instanceof RedisChannelHandler<?, ?> handler) {
			handler.addListener((RedisConnectionStateListener) watched);
		}
		return () -> {
			this.watched.remove(watched);
			connection.removeListener((RedisPubSubListener<byte[], byte[]>) watched);
			if (connection instanceof RedisChannelHandler<?, ?> handler) {
				handler.removeListener((RedisConnectionStateListener) watched);
			}
		};
	}

	/**
	 * Return how many subscriptions were found not restored after a reconnect since
	 * startup, for a counter.
	 * @return the subscriptions lost
	 */
	public long lost() {
		return this.lost.get();
	}

	/**
	 * Return the subscriptions not restored now, oldest first.
	 * @return the subscriptions not restored
	 */
	public List<Unrestored> unrestored() {
		List<Unrestored> unrestored = new ArrayList<>();
		for (Watched watched : this.watched) {
			watched.addUnrestored(unrestored);
		}
		unrestored.sort(Comparator.comparing(Unrestored::since));
		return unrestored;
	}

	/**
	 * Return how many Pub/Sub connections are followed now.
	 * @return the connections
	 */
	public int connections() {
		return this.watched.size();
	}

	private static String describe(@Nullable SocketAddress address) {
		if (address instanceof InetSocketAddress inet) {
			return inet.getHostString() + ":" + inet.getPort();
		}
		return String.valueOf(address);
	}

	/**
	 * Stops following a connection.
	 */
	@FunctionalInterface
	public interface Registration {

		/**
		 * Stop following the connection.
		 */
		void cancel();

	}

	/**
	 * A subscription that a reconnected connection did not restore.
	 *
	 * @param subscription the channel ({@code channel <name>}) or pattern
	 * ({@code pattern <pattern>})
	 * @param server the server the connection reconnected to, as {@code host:port}
	 * @param since when it was reported as not restored
	 */
	public record Unrestored(String subscription, String server, Instant since) {
	}

	/**
	 * One connection: what the server confirmed, and what it has not confirmed again
	 * since the last disconnect. Lettuce calls it on the connection's event loop, the
	 * check runs on another thread and the readers on theirs, so the sets are guarded by
	 * the instance; nothing blocks while holding it.
	 */
	private final class Watched extends RedisPubSubAdapter<byte[], byte[]> implements RedisConnectionStateListener {

		private final StatefulRedisPubSubConnection<byte[], byte[]> connection;

		private final Set<String> confirmed = new LinkedHashSet<>();

		private final Set<String> awaited = new LinkedHashSet<>();

		private final Set<String> unrestored = new LinkedHashSet<>();

		private String server = "an unknown address";

		private Instant unrestoredSince = Instant.EPOCH;

		// Tells a check whether the reconnect it was started for is still the current
		// one.
		private long reconnects;

		Watched(StatefulRedisPubSubConnection<byte[], byte[]> connection) {
			this.connection = connection;
		}

		@Override
		public void subscribed(byte[] channel, long count) {
			confirmed("channel " + text(channel));
		}

		@Override
		public void psubscribed(byte[] pattern, long count) {
			confirmed("pattern " + text(pattern));
		}

		@Override
		public void unsubscribed(byte[] channel, long count) {
			removed("channel " + text(channel));
		}

		@Override
		public void punsubscribed(byte[] pattern, long count) {
			removed("pattern " + text(pattern));
		}

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
			synchronized (this) {
				this.reconnects++;
				this.awaited.addAll(this.confirmed);
			}
		}

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
			long reconnect;
			synchronized (this) {
				this.server = describe(socketAddress);
				if (this.awaited.isEmpty()) {
					return;
				}
				reconnect = this.reconnects;
			}
			try {
				connection.getResources()
					.eventExecutorGroup()
					.schedule(() -> check(reconnect), SubscriptionWatch.this.restoreTimeout.toNanos(),
							TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				// The client is shutting down: nothing to restore.
			}
		}

		private void check(long reconnect) {
			List<String> notRestored;
			String server;
			synchronized (this) {
				if (reconnect != this.reconnects || this.awaited.isEmpty() || !this.connection.isOpen()) {
					return;
				}
				notRestored = new ArrayList<>(this.awaited);
				this.awaited.clear();
				if (this.unrestored.isEmpty()) {
					this.unrestoredSince = Instant.now();
				}
				this.unrestored.addAll(notRestored);
				server = this.server;
			}
			SubscriptionWatch.this.lost.addAndGet(notRestored.size());
			logger.warn("Pub/Sub connection to " + server + " did not restore " + String.join(", ", notRestored)
					+ " within " + SubscriptionWatch.this.restoreTimeout.toMillis()
					+ "ms of reconnecting: their listeners receive nothing until they are subscribed again");
		}

		private void confirmed(String subscription) {
			boolean restored;
			String server;
			synchronized (this) {
				this.confirmed.add(subscription);
				this.awaited.remove(subscription);
				restored = this.unrestored.remove(subscription);
				server = this.server;
			}
			if (restored) {
				logger.info("Pub/Sub connection to " + server + " restored " + subscription);
			}
		}

		private synchronized void removed(String subscription) {
			this.confirmed.remove(subscription);
			this.awaited.remove(subscription);
			this.unrestored.remove(subscription);
		}

		synchronized void addUnrestored(List<Unrestored> target) {
			for (String subscription : this.unrestored) {
				target.add(new Unrestored(subscription, this.server, this.unrestoredSince));
			}
		}

		private static String text(byte[] value) {
			return new String(value, StandardCharsets.UTF_8);
		}

	}

}
