package io.github.lettucetuning.nearcache;

import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.push.PushListener;
import io.lettuce.core.api.push.PushMessage;
import io.lettuce.core.codec.ByteArrayCodec;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The connection that carries Redis's invalidations to a near cache: one RESP3 connection
 * of its own, opened by the given {@link RedisClient} (standalone, or the master that
 * Sentinel names), with {@code CLIENT TRACKING ON BCAST} for the key prefixes of the near
 * caches.
 * <p>
 * Broadcast mode needs no registration per key read, so the reads may go through any
 * connection of the application and this one carries invalidations only. The state is one
 * number, the epoch: odd while tracking is on, even while it is not. It moves on every
 * change, so a read that began in one epoch can tell that tracking was lost, or lost and
 * re-established, before it finished. When the connection is lost, the epoch becomes even
 * and the listener is told to drop everything; after Lettuce reconnects, tracking is
 * issued again (Lettuce's handshake does not replay it), and only its reply makes the
 * epoch odd again.
 *
 * @since 0.1.0
 */
public final class InvalidationTracking implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(InvalidationTracking.class);

	/**
	 * Name of the tracking connection in {@code CLIENT LIST}.
	 */
	public static final String CLIENT_NAME = "lettuce-tuning-near-cache";

	private static final Duration RETRY_INTERVAL = Duration.ofSeconds(1);

	private final Supplier<@Nullable RedisClient> client;

	private final Supplier<List<String>> prefixes;

	private final Invalidations invalidations;

	private final Object lock = new Object();

	private final Listener listener = new Listener();

	private volatile long epoch;

	private volatile boolean closed;

	private volatile boolean unsupported;

	// Guarded by lock: a caller is opening the connection.
	private boolean opening;

	// Written under lock; the listener reads it without, so that the factory's own
	// connections, which tell the same listener, never wait for the lock on an event
	// loop.
	private volatile @Nullable StatefulRedisConnection<byte[], byte[]> connection;

	// Guarded by lock.
	private @Nullable RedisClient listenedClient;

	// Guarded by lock.
	private long nextAttempt;

	// Guarded by lock: one warning per run of failed attempts.
	private boolean warned;

	// Guarded by lock; moves on every connect and disconnect of the connection, so that
	// the reply to a CLIENT TRACKING sent before one of them is ignored.
	private long connectGeneration;

	/**
	 * Create a tracking that opens its connection on first use.
	 * @param client the client to open the connection with, or null when there is none
	 * (the near cache is then bypassed)
	 * @param prefixes the key prefixes to track, asked once when the connection opens;
	 * empty tracks every key
	 * @param invalidations told of every invalidation
	 */
	public InvalidationTracking(Supplier<@Nullable RedisClient> client, Supplier<List<String>> prefixes,
			Invalidations invalidations) {
		this.client = client;
		this.prefixes = prefixes;
		this.invalidations = invalidations;
	}

	/**
	 * The current epoch, odd when tracking is on. Opens the connection first if it is not
	 * open yet and the last attempt is at least a second old.
	 * @return the epoch
	 */
	public long epoch() {
		long current = this.epoch;
		if ((current & 1) == 0 && !this.closed && !this.unsupported) {
			if (open()) {
				awaitFirstReply();
			}
			current = this.epoch;
		}
		return current;
	}

	/**
	 * Whether tracking is on in the given epoch, and still is.
	 * @param epoch an epoch from {@link #epoch()}
	 * @return whether values read in that epoch may be kept
	 */
	public boolean isTracking(long epoch) {
		return (epoch & 1) == 1 && this.epoch == epoch;
	}

	/**
	 * Whether tracking is on.
	 * @return whether tracking is on
	 */
	public boolean isTracking() {
		return (this.epoch & 1) == 1;
	}

	// One caller opens the connection, outside the lock (connecting and CLIENT INFO are
	// blocking round trips, and a lock held across them would pin a virtual thread's
	// carrier); callers meanwhile bypass the near cache rather than wait.
	private boolean open() {
		RedisClient redisClient;
		synchronized (this.lock) {
			if (this.connection != null || this.opening || this.closed || this.unsupported
					|| System.nanoTime() < this.nextAttempt) {
				return false;
			}
			this.nextAttempt = System.nanoTime() + RETRY_INTERVAL.toNanos();
			redisClient = this.client.get();
			if (redisClient == null) {
				this.unsupported = true;
				logger.info("lettuce-tuning's near cache is bypassed: it tracks keys on standalone Redis and on "
						+ "Sentinel's master only, through a Lettuce connection factory");
				return false;
			}
			this.opening = true;
		}
		StatefulRedisConnection<byte[], byte[]> opened = null;
		try {
			opened = connect(redisClient);
			return (opened != null) && install(redisClient, opened);
		}
		finally {
			synchronized (this.lock) {
				this.opening = false;
			}
		}
	}

	// A RESP3 connection, or null if there is none to have (logged).
	private @Nullable StatefulRedisConnection<byte[], byte[]> connect(RedisClient redisClient) {
		StatefulRedisConnection<byte[], byte[]> opened;
		try {
			opened = redisClient.connect(ByteArrayCodec.INSTANCE);
		}
		catch (RuntimeException ex) {
			warnOnce(ex);
			return null;
		}
		try {
			if (!opened.sync().clientInfo().contains(" resp=3")) {
				this.unsupported = true;
				opened.close();
				logger.info("lettuce-tuning's near cache is bypassed: its connection speaks RESP2, "
						+ "and Redis delivers invalidations to a RESP3 connection only");
				return null;
			}
			return opened;
		}
		catch (RuntimeException ex) {
			opened.close();
			warnOnce(ex);
			return null;
		}
	}

	private boolean install(RedisClient redisClient, StatefulRedisConnection<byte[], byte[]> opened) {
		synchronized (this.lock) {
			if (this.closed) {
				opened.closeAsync();
				return false;
			}
			this.warned = false;
			opened.addListener(new Pushes());
			this.connection = opened;
			if (this.listenedClient == null) {
				redisClient.addListener(this.listener);
				this.listenedClient = redisClient;
			}
			startTracking(opened);
			return true;
		}
	}

	private void warnOnce(RuntimeException ex) {
		synchronized (this.lock) {
			if (this.warned) {
				return;
			}
			this.warned = true;
			logger.warn("lettuce-tuning's near cache is bypassed until its tracking connection opens; "
					+ "it tries again every second: " + ex);
		}
	}

	// The first tracking reply arrives soon; waiting for it spares the first reads a
	// bypass. Never longer than the retry interval.
	private void awaitFirstReply() {
		long deadline = System.nanoTime() + RETRY_INTERVAL.toNanos();
		while ((this.epoch & 1) == 0 && System.nanoTime() < deadline && !this.closed) {
			LockSupport.parkNanos(100_000);
		}
	}

	// Guarded by lock. OFF first: a CLIENT TRACKING ON that Lettuce re-sends after a
	// reconnect would otherwise make the next ON fail for prefixes that overlap.
	private void startTracking(StatefulRedisConnection<byte[], byte[]> target) {
		long generation = ++this.connectGeneration;
		TrackingArgs args = TrackingArgs.Builder.enabled().bcast();
		List<String> tracked = nonOverlapping(this.prefixes.get());
		if (!tracked.isEmpty()) {
			args.prefixes(tracked.toArray(String[]::new));
		}
		// Lettuce's handshake replays neither the name nor the tracking.
		target.async().clientSetname(CLIENT_NAME.getBytes(StandardCharsets.UTF_8));
		target.async().clientTracking(TrackingArgs.Builder.enabled(false));
		target.async().clientTracking(args).whenComplete((reply, failure) -> {
			synchronized (this.lock) {
				if (generation != this.connectGeneration || this.connection != target || this.closed) {
					return;
				}
				if (failure != null) {
					logger.warn("lettuce-tuning's near cache is bypassed: CLIENT TRACKING failed: " + failure);
					return;
				}
				if ((this.epoch & 1) == 0) {
					this.epoch++;
				}
			}
		});
	}

	/**
	 * The prefixes to track, without those that another one covers: Redis refuses
	 * overlapping prefixes on one connection. An empty prefix covers every key.
	 * @param prefixes the prefixes
	 * @return the prefixes to send, empty for every key
	 */
	static List<String> nonOverlapping(List<String> prefixes) {
		List<String> sorted = prefixes.stream().distinct().sorted().toList();
		List<String> kept = new ArrayList<>();
		for (String prefix : sorted) {
			if (prefix.isEmpty()) {
				return List.of();
			}
			if (kept.isEmpty() || !prefix.startsWith(kept.get(kept.size() - 1))) {
				kept.add(prefix);
			}
		}
		return kept;
	}

	private void lost() {
		synchronized (this.lock) {
			this.connectGeneration++;
			if ((this.epoch & 1) == 1) {
				this.epoch++;
			}
		}
		this.invalidations.invalidateAll();
	}

	@Override
	public void close() {
		StatefulRedisConnection<byte[], byte[]> toClose;
		synchronized (this.lock) {
			this.closed = true;
			toClose = this.connection;
			this.connection = null;
			if (this.listenedClient != null) {
				this.listenedClient.removeListener(this.listener);
				this.listenedClient = null;
			}
		}
		lost();
		if (toClose != null) {
			toClose.close();
		}
	}

	/**
	 * Told of the keys that Redis invalidates.
	 */
	public interface Invalidations {

		/**
		 * Drop the given keys.
		 * @param keys the keys, as Redis stores them
		 */
		void invalidate(List<byte[]> keys);

		/**
		 * Drop every key: Redis flushed, or invalidations may have been lost.
		 */
		void invalidateAll();

	}

	private final class Pushes implements PushListener {

		@Override
		public void onPushMessage(PushMessage message) {
			if (!"invalidate".equals(message.getType())) {
				return;
			}
			List<Object> content = message.getContent(InvalidationTracking::copy);
			Object keys = (content.size() > 1) ? content.get(1) : null;
			if (keys instanceof List<?> list) {
				List<byte[]> invalidated = new ArrayList<>(list.size());
				for (Object key : list) {
					if (key instanceof byte[] bytes) {
						invalidated.add(bytes);
					}
				}
				InvalidationTracking.this.invalidations.invalidate(invalidated);
			}
			else {
				InvalidationTracking.this.invalidations.invalidateAll();
			}
		}

	}

	private static Object copy(ByteBuffer buffer) {
		byte[] bytes = new byte[buffer.remaining()];
		buffer.duplicate().get(bytes);
		return bytes;
	}

	private final class Listener implements RedisConnectionStateListener {

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
			if (handler != InvalidationTracking.this.connection) {
				return;
			}
			synchronized (InvalidationTracking.this.lock) {
				StatefulRedisConnection<byte[], byte[]> current = InvalidationTracking.this.connection;
				if (current != null && current == handler && !InvalidationTracking.this.closed) {
					startTracking(current);
				}
			}
		}

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
			if (handler == InvalidationTracking.this.connection) {
				lost();
			}
		}

	}

}
