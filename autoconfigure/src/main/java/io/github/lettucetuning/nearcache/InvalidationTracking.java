package io.github.lettucetuning.nearcache;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.push.PushMessage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The connections that carry Redis's invalidations to a near cache: RESP3 connections of
 * its own, opened by the application's client (to standalone Redis, the master Sentinel
 * names, or every master of a cluster), with {@code CLIENT TRACKING ON BCAST NOLOOP} for
 * the key prefixes of the near caches.
 * <p>
 * Broadcast mode needs no registration per key read, so the reads may go through any
 * connection of the application and these carry invalidations, and on standalone Redis
 * the near caches' own writes, which Redis then does not echo back. The state is one
 * number, the epoch: odd while tracking is on everywhere, even while it is not. It moves
 * on every change, so a read that began in one epoch can tell that tracking was lost, or
 * lost and re-established, before it finished. When a connection is lost, or the masters
 * of a cluster change, the epoch becomes even and the listener is told to drop
 * everything; tracking is then issued again on every connection (Lettuce's handshake does
 * not replay it), and only the replies of all make the epoch odd again.
 * <p>
 * A connection that stops answering without closing (a partition, a frozen server) loses
 * no event, so on top of the epoch a value is served from memory only under a lease: the
 * newest confirmation (a reply to the tracking command or to a {@code PING} on every
 * connection) was sent at most {@link #LEASE} ago. A reply comes after every invalidation
 * Redis queued before it on the same connection, so a write acknowledged before the
 * confirmation was sent has been invalidated by the time the confirmation counts. The
 * lease is renewed by the reads that use it, when half of it has gone: no timer, nothing
 * sent while the application reads nothing.
 *
 * @since 0.1.0
 */
public final class InvalidationTracking implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(InvalidationTracking.class);

	/**
	 * Name of the tracking connections in {@code CLIENT LIST}.
	 */
	public static final String CLIENT_NAME = "lettuce-tuning-near-cache";

	/**
	 * How old the newest confirmation of the tracking connections may be for a value to
	 * be served from memory.
	 */
	public static final Duration LEASE = Duration.ofSeconds(1);

	private static final long LEASE_NANOS = LEASE.toNanos();

	private static final long RENEWAL_NANOS = LEASE_NANOS / 2;

	private static final Duration RETRY_INTERVAL = Duration.ofSeconds(1);

	private final Supplier<@Nullable AbstractRedisClient> client;

	private final Supplier<List<String>> prefixes;

	private final Invalidations invalidations;

	private final Object lock = new Object();

	private final Listener listener = new Listener();

	private final AtomicBoolean renewing = new AtomicBoolean();

	private volatile long epoch;

	// System.nanoTime() when the newest answered confirmation was sent
	private volatile long confirmedAt;

	private volatile boolean closed;

	private volatile @Nullable String unsupportedReason;

	private volatile long interruptions;

	// Completes when tracking is on; replaced when it is lost
	private volatile CompletableFuture<Void> trackingOn = new CompletableFuture<>();

	// Moves on every loss and every attempt, so that the replies to an attempt made
	// before either are ignored
	private volatile long generation;

	// Written under lock; read without by the listener, which the application's own
	// connections tell too: it never waits for the lock on an event loop for them
	private volatile @Nullable TrackedNodes nodes;

	// The connections the newest attempt tracked on, for the lease's PINGs
	private volatile List<StatefulRedisConnection<byte[], byte[]>> tracked = List.of();

	// Guarded by lock: a caller is opening the connections
	private boolean opening;

	// Guarded by lock: an attempt to turn tracking on waits for its replies
	private boolean attempting;

	// Guarded by lock
	private long nextAttempt;

	// Guarded by lock: one warning per run of failed attempts
	private boolean warned;

	// Guarded by lock
	private @Nullable AbstractRedisClient listenedClient;

	/**
	 * Create a tracking that opens its connections on first use.
	 * @param client the client to open the connections with, or null when there is none
	 * (the near cache is then bypassed)
	 * @param prefixes the key prefixes to track, asked on every attempt; empty tracks
	 * every key
	 * @param invalidations told of every invalidation
	 */
	public InvalidationTracking(Supplier<@Nullable AbstractRedisClient> client, Supplier<List<String>> prefixes,
			Invalidations invalidations) {
		this.client = client;
		this.prefixes = prefixes;
		this.invalidations = invalidations;
	}

	/**
	 * The current epoch, odd when tracking is on. Opens the connections first if they are
	 * not open yet, and tries tracking again if it is off and the last attempt is at
	 * least a second old.
	 * @return the epoch
	 */
	public long epoch() {
		long current = this.epoch;
		if ((current & 1) == 0 && !this.closed && this.unsupportedReason == null) {
			if (ensureTracking()) {
				awaitTracking();
			}
			current = this.epoch;
		}
		return current;
	}

	/**
	 * Whether tracking is on in the given epoch, and still is: a value read in that epoch
	 * may be kept.
	 * @param epoch an epoch from {@link #epoch()}
	 * @return whether values read in that epoch may be kept
	 */
	public boolean isTracking(long epoch) {
		return (epoch & 1) == 1 && this.epoch == epoch;
	}

	/**
	 * Whether a value kept in the given epoch may be served from memory now: tracking is
	 * still on in that epoch and the lease holds. Renews the lease when half of it has
	 * gone.
	 * @param epoch an epoch from {@link #epoch()}
	 * @return whether a value kept in that epoch may be served
	 */
	public boolean serves(long epoch) {
		return isTracking(epoch) && leaseHolds();
	}

	/**
	 * Whether a value kept now may be served from memory now.
	 * @return whether tracking is on and the lease holds
	 */
	public boolean serves() {
		return isTracking() && leaseHolds();
	}

	/**
	 * Whether tracking is on.
	 * @return whether tracking is on
	 */
	public boolean isTracking() {
		return (this.epoch & 1) == 1;
	}

	/**
	 * Where the tracking stands, for health, meters and the endpoint.
	 * @return the status
	 */
	public Status status() {
		if (this.closed) {
			return Status.CLOSED;
		}
		if (this.unsupportedReason != null) {
			return Status.UNSUPPORTED;
		}
		if (isTracking()) {
			return Status.TRACKING;
		}
		return (this.epoch == 0) ? Status.STARTING : Status.INTERRUPTED;
	}

	/**
	 * Why the near cache is bypassed for good, when it is.
	 * @return the reason, or null while it is not bypassed for good
	 */
	public @Nullable String unsupportedReason() {
		return this.unsupportedReason;
	}

	/**
	 * How many times tracking was lost after it had been on: each time, the local values
	 * were dropped and reads went to Redis until tracking was back.
	 * @return the number of interruptions
	 */
	public long interruptions() {
		return this.interruptions;
	}

	/**
	 * The connection for a near cache's own writes, or null when there is none: a
	 * cluster, or tracking not on. Redis sends it no invalidation for keys it writes
	 * itself ({@code NOLOOP}), so the writer drops its keys when Redis has run the write.
	 * @return the tracking connection of a standalone or Sentinel setup, while tracking
	 */
	public @Nullable StatefulRedisConnection<byte[], byte[]> writeConnection() {
		TrackedNodes current = this.nodes;
		return (current != null && isTracking()) ? current.writer() : null;
	}

	/**
	 * A write on {@link #writeConnection()} failed. Without Redis's answer (a timeout, a
	 * lost connection) Redis may still run it, and would not tell: tracking is lost and
	 * issued again at once on the same connection, and its reply comes after the write,
	 * if the write runs at all. A write Redis answered with an error ({@code READONLY}
	 * from a demoted primary, {@code OOM}) never runs, and tracking stands: taking those
	 * for lost tracking too emptied the memory and re-tracked on every write to a demoted
	 * primary, 52 times in one Sentinel fault campaign.
	 * @param failure how the write failed
	 */
	public void writeFailed(Throwable failure) {
		if (!(unwrap(failure) instanceof RedisCommandExecutionException)) {
			lostAndRetried();
		}
	}

	// Tracking is issued again by the next read, without waiting out the retry interval
	private void lostAndRetried() {
		lost();
		synchronized (this.lock) {
			this.nextAttempt = System.nanoTime();
		}
	}

	private boolean leaseHolds() {
		long age = System.nanoTime() - this.confirmedAt;
		if (age > RENEWAL_NANOS) {
			renew();
		}
		return age < LEASE_NANOS;
	}

	// One round of PINGs at a time. One that never returns is ended by the starter's
	// stall check or the command timeout: its connection closes, and tracking is lost.
	private void renew() {
		if (this.renewing.get() || !this.renewing.compareAndSet(false, true)) {
			return;
		}
		long round = this.generation;
		long sentAt = System.nanoTime();
		List<StatefulRedisConnection<byte[], byte[]>> connections = this.tracked;
		if (connections.isEmpty()) {
			this.renewing.set(false);
			return;
		}
		List<CompletableFuture<String>> pings = new ArrayList<>();
		for (StatefulRedisConnection<byte[], byte[]> connection : connections) {
			pings.add(connection.async().ping().toCompletableFuture());
		}
		CompletableFuture.allOf(pings.toArray(CompletableFuture[]::new)).whenComplete((done, failure) -> {
			if (failure == null && round == this.generation) {
				confirm(sentAt);
			}
			this.renewing.set(false);
		});
	}

	private void confirm(long sentAt) {
		synchronized (this.lock) {
			if (sentAt - this.confirmedAt > 0) {
				this.confirmedAt = sentAt;
			}
		}
	}

	// True when this caller opened the connections: it then waits for tracking, which
	// spares the first reads a bypass. Otherwise starts an attempt when one is due.
	private boolean ensureTracking() {
		TrackedNodes current = this.nodes;
		if (current != null) {
			synchronized (this.lock) {
				if (this.attempting || System.nanoTime() - this.nextAttempt < 0) {
					return false;
				}
			}
			track(current);
			return false;
		}
		return open();
	}

	private void awaitTracking() {
		try {
			this.trackingOn.get(RETRY_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		catch (Exception ex) {
			// Read Redis meanwhile
		}
	}

	// One caller opens the connections, outside the lock (connecting is a blocking
	// round trip, and a lock held across it would pin a virtual thread's carrier);
	// callers meanwhile bypass the near cache rather than wait.
	private boolean open() {
		AbstractRedisClient redisClient;
		synchronized (this.lock) {
			if (this.nodes != null || this.opening || this.closed || System.nanoTime() - this.nextAttempt < 0) {
				return false;
			}
			this.nextAttempt = System.nanoTime() + RETRY_INTERVAL.toNanos();
			redisClient = this.client.get();
			if (redisClient == null) {
				unsupported("it tracks keys through a Lettuce connection factory to standalone Redis, Sentinel or "
						+ "a cluster, and the application's factory is none of these");
				return false;
			}
			this.opening = true;
		}
		try {
			TrackedNodes opened = EventLoopTurns.giveBack(redisClient.getResources(),
					() -> TrackedNodes.open(redisClient, new Events()));
			return install(redisClient, opened);
		}
		catch (TrackedNodes.UnsupportedTrackingException ex) {
			unsupported(ex.getMessage());
			return false;
		}
		catch (RuntimeException ex) {
			warnOnce(ex);
			return false;
		}
		finally {
			synchronized (this.lock) {
				this.opening = false;
			}
		}
	}

	private boolean install(AbstractRedisClient redisClient, TrackedNodes opened) {
		synchronized (this.lock) {
			if (this.closed) {
				opened.close();
				return false;
			}
			this.nodes = opened;
			if (this.listenedClient == null) {
				redisClient.addListener(this.listener);
				this.listenedClient = redisClient;
			}
		}
		track(opened);
		return true;
	}

	// Turns tracking on for every connection; the epoch becomes odd when all have
	// answered, unless tracking was lost or tried again meanwhile. OFF first: a CLIENT
	// TRACKING ON that Lettuce re-sends after a reconnect would otherwise make the next
	// ON fail for prefixes that overlap.
	private void track(TrackedNodes target) {
		long attempt;
		synchronized (this.lock) {
			if (this.closed) {
				return;
			}
			attempt = ++this.generation;
			this.attempting = true;
			this.nextAttempt = System.nanoTime() + RETRY_INTERVAL.toNanos();
		}
		TrackingArgs args = trackingArgs(nonOverlapping(this.prefixes.get()));
		long sentAt = System.nanoTime();
		target.masters().thenCompose((connections) -> {
			List<CompletableFuture<String>> replies = new ArrayList<>();
			for (StatefulRedisConnection<byte[], byte[]> connection : connections) {
				replies.add(trackOn(connection, args));
			}
			return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).thenApply((done) -> connections);
		}).whenComplete((connections, failure) -> tracked(attempt, sentAt, connections, failure));
	}

	private static TrackingArgs trackingArgs(List<String> prefixes) {
		TrackingArgs args = TrackingArgs.Builder.enabled().bcast().noloop();
		if (!prefixes.isEmpty()) {
			args.prefixes(prefixes.toArray(String[]::new));
		}
		return args;
	}

	// Lettuce's handshake replays neither the name nor the tracking.
	private static CompletableFuture<String> trackOn(StatefulRedisConnection<byte[], byte[]> connection,
			TrackingArgs args) {
		connection.async().clientSetname(CLIENT_NAME.getBytes(StandardCharsets.UTF_8));
		connection.async().clientTracking(TrackingArgs.Builder.enabled(false));
		return connection.async().clientTracking(args).toCompletableFuture();
	}

	private void tracked(long attempt, long sentAt, @Nullable List<StatefulRedisConnection<byte[], byte[]>> connections,
			@Nullable Throwable failure) {
		synchronized (this.lock) {
			if (attempt != this.generation || this.closed) {
				return;
			}
			this.attempting = false;
			if (failure != null || connections == null) {
				refusedOrFailed(failure);
				return;
			}
			this.warned = false;
			this.tracked = connections;
			this.confirmedAt = sentAt;
			if ((this.epoch & 1) == 0) {
				this.epoch++;
				this.trackingOn.complete(null);
			}
		}
	}

	// Guarded by lock. A refusal is for good (a server without tracking, a user not
	// allowed to track); anything else is tried again on a read a second later.
	private void refusedOrFailed(@Nullable Throwable failure) {
		Throwable cause = unwrap(failure);
		if (cause instanceof RedisCommandExecutionException refused && isRefusal(refused.getMessage())) {
			unsupported("Redis refused CLIENT TRACKING: " + refused.getMessage());
			TrackedNodes current = this.nodes;
			this.nodes = null;
			if (current != null) {
				current.closeAsync();
			}
		}
		else {
			warnLocked(cause);
		}
	}

	private static @Nullable Throwable unwrap(@Nullable Throwable failure) {
		return (failure instanceof CompletionException) ? failure.getCause() : failure;
	}

	// A server without tracking, a user not allowed to track; not LOADING, BUSY or
	// MASTERDOWN, which pass. Nor a prefix that overlaps one the connection tracks
	// already: the prefixes sent never overlap each other (nonOverlapping), so that
	// one is the near cache's own, from an earlier attempt whose ON ran between this
	// one's OFF and ON (a loss of tracking lets a new attempt start while one is under
	// way; a Sentinel fault campaign once saw it); the next attempt's OFF clears it.
	static boolean isRefusal(@Nullable String message) {
		return message != null && (message.startsWith("ERR") || message.startsWith("NOPERM"))
				&& !message.contains("overlaps with an existing prefix");
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

	private void unsupported(String reason) {
		this.unsupportedReason = reason;
		logger.info("lettuce-tuning's near cache is bypassed: " + reason);
	}

	private void warnOnce(RuntimeException ex) {
		synchronized (this.lock) {
			warnLocked(ex);
		}
	}

	private void warnLocked(@Nullable Throwable ex) {
		if (!this.warned) {
			this.warned = true;
			logger.warn("lettuce-tuning's near cache is bypassed until its tracking connections answer; "
					+ "it tries again every second: " + ex);
		}
	}

	private void lost() {
		synchronized (this.lock) {
			this.generation++;
			this.attempting = false;
			if ((this.epoch & 1) == 1) {
				this.epoch++;
				this.interruptions++;
				this.trackingOn = new CompletableFuture<>();
			}
		}
		this.invalidations.invalidateAll();
	}

	@Override
	public void close() {
		TrackedNodes toClose;
		synchronized (this.lock) {
			this.closed = true;
			toClose = this.nodes;
			this.nodes = null;
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
	 * Where the tracking stands.
	 */
	public enum Status {

		/**
		 * Not on yet: the connections have not been opened, or their first tracking
		 * replies have not arrived.
		 */
		STARTING,

		/**
		 * On: values are kept and served from memory.
		 */
		TRACKING,

		/**
		 * Lost after it had been on: local values were dropped, reads go to Redis until
		 * tracking is back.
		 */
		INTERRUPTED,

		/**
		 * Never possible here (a RESP2 connection, a server that refuses tracking, a
		 * connection factory that is not Lettuce's): every read goes to Redis.
		 */
		UNSUPPORTED,

		/**
		 * Closed with the application context.
		 */
		CLOSED

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

	private final class Events implements TrackedNodes.Events {

		@Override
		public void pushed(PushMessage message) {
			if (!"invalidate".equals(message.getType())) {
				return;
			}
			List<byte[]> keys = TrackedNodes.invalidatedKeys(message);
			if (keys != null) {
				InvalidationTracking.this.invalidations.invalidate(keys);
			}
			else {
				InvalidationTracking.this.invalidations.invalidateAll();
			}
		}

		// The client's connections see the new masters only once this event has been
		// handled: tracking is issued again by the next read.
		@Override
		public void mastersChanged() {
			lostAndRetried();
		}

	}

	// A connection that comes back may have missed invalidations while it was away,
	// also when its loss went unheard: both ends count as a loss.
	private final class Listener implements RedisConnectionStateListener {

		@Override
		public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
			TrackedNodes current = InvalidationTracking.this.nodes;
			if (current != null && current.carries(handler) && !InvalidationTracking.this.closed) {
				lost();
				track(current);
			}
		}

		@Override
		public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
			TrackedNodes current = InvalidationTracking.this.nodes;
			if (current != null && current.carries(handler)) {
				lost();
			}
		}

	}

}
