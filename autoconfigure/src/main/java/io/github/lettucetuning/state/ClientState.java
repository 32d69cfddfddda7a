package io.github.lettucetuning.state;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What the tuned client is doing at one moment, read once by a {@link ClientStateReader}
 * and shown by the {@code redis} health, the {@code lettuce.tuning.*} meters and the
 * {@code lettuce} endpoint alike: each reads its facts here, so none can tell another
 * story. {@link #fault()} says who is at fault when something is wrong, decided here and
 * nowhere else.
 *
 * @param mode the connection mode ({@code shared}, {@code multi}, {@code pooled})
 * @param commandTimeout the command timeout of the client configuration
 * @param connections the shared native connections by state
 * @param pool the dedicated pool, or {@code null} when dedicated connections are not
 * pooled
 * @param timer the expiry timer's counts
 * @param events the client events counted since startup, or {@code null} when not
 * recorded
 * @param topology cluster topology changes, or {@code null} when not connected to a
 * cluster or not recorded
 * @param outages the commands waiting and the unreachable servers, or {@code null} when
 * lettuce-tuning's outage guard is not on the connections
 * @param eventLoops the event loops found blocked, or {@code null} when blocked loops are
 * not detected
 * @param subscriptions the Pub/Sub subscriptions that reconnects did not restore
 * @param credentials who the client authenticates as and its re-authentications, or
 * {@code null} when not followed
 * @param roleChanges the demoted primaries followed, or {@code null} when the connections
 * do not follow them (a cluster, read-from, or switched off)
 * @param nearCache the near cache of Spring Boot's RedisCacheManager, or {@code null}
 * when it is off
 * @since 0.1.0
 */
public record ClientState(String mode, Duration commandTimeout, Connections connections, @Nullable PoolSnapshot pool,
		TimerSnapshot timer, @Nullable Events events, @Nullable Topology topology, @Nullable Outages outages,
		@Nullable EventLoops eventLoops, Subscriptions subscriptions, @Nullable Credentials credentials,
		@Nullable RoleChanges roleChanges, @Nullable NearCache nearCache) {

	/**
	 * Return who is at fault now, if anything is wrong: a loop the application blocks
	 * comes first (nothing on its connections is answered, whatever Redis does), then a
	 * server that refuses the client (credentials, TLS), then a server that does not
	 * answer, then subscriptions a reconnect did not restore.
	 * @return the fault, {@link Fault#NONE} when nothing is wrong
	 */
	public Fault fault() {
		if (stuckLoop() != null) {
			return Fault.EVENT_LOOP_STUCK;
		}
		if (!blockedLoops().isEmpty()) {
			return Fault.EVENT_LOOP_BLOCKED;
		}
		List<Outage> unreachable = unreachable();
		if (unreachable.stream().anyMatch((outage) -> outage.rejection() != null)) {
			return Fault.CREDENTIALS_REFUSED;
		}
		if (unreachable.stream().anyMatch((outage) -> outage.tls() != null)) {
			return Fault.TLS_REFUSED;
		}
		if (!unreachable.isEmpty()) {
			return Fault.REDIS_UNREACHABLE;
		}
		if (!this.subscriptions.unrestored().isEmpty()) {
			return Fault.SUBSCRIPTIONS_UNRESTORED;
		}
		return Fault.NONE;
	}

	/**
	 * Return the loops blocked now, longest first.
	 * @return the blocked loops, empty when none is or blocked loops are not detected
	 */
	public List<BlockedLoop> blockedLoops() {
		return (this.eventLoops != null) ? this.eventLoops.blocked() : List.of();
	}

	/**
	 * Return the first loop blocked for the command timeout or longer: every command on
	 * its connections has failed by then, and it may never return.
	 * @return the loop, or {@code null} if none is blocked that long
	 */
	public @Nullable BlockedLoop stuckLoop() {
		for (BlockedLoop loop : blockedLoops()) {
			if (loop.duration().compareTo(this.commandTimeout) >= 0) {
				return loop;
			}
		}
		return null;
	}

	/**
	 * Return the connections whose commands fail fast, longest outage first.
	 * @return the outages, empty without the outage guard
	 */
	public List<Outage> unreachable() {
		return (this.outages != null) ? this.outages.unreachable() : List.of();
	}

	/**
	 * Return the connections in a maintenance window the server announced.
	 * @return the connections, zero without the outage guard
	 */
	public int connectionsInMaintenanceWindow() {
		return (this.outages != null) ? this.outages.maintenance().connectionsInWindow() : 0;
	}

	/**
	 * Who is at fault when the client cannot serve commands as it should.
	 */
	public enum Fault {

		/**
		 * Nothing is wrong that the client can see.
		 */
		NONE,

		/**
		 * The application has blocked an event loop for the command timeout or longer.
		 */
		EVENT_LOOP_STUCK,

		/**
		 * The application blocks an event loop: the client, not Redis, is at fault.
		 */
		EVENT_LOOP_BLOCKED,

		/**
		 * The server refuses the credentials the client sends.
		 */
		CREDENTIALS_REFUSED,

		/**
		 * The TLS handshake with the server fails.
		 */
		TLS_REFUSED,

		/**
		 * The server does not answer: Redis is at fault.
		 */
		REDIS_UNREACHABLE,

		/**
		 * Pub/Sub subscriptions were not restored after a reconnect.
		 */
		SUBSCRIPTIONS_UNRESTORED

	}

	/**
	 * Shared native connections by state, and what is in flight on each.
	 *
	 * @param total the shared connections the mode provides for
	 * @param open the connected ones
	 * @param disconnected the ones Lettuce is reconnecting
	 * @param unopened the ones not opened yet
	 * @param inFlight the operations in flight on each shared connection of the
	 * imperative API, in member order, in every selection policy
	 * @param reactiveInFlight the commands in flight on each shared connection of the
	 * reactive API, in member order
	 */
	public record Connections(int total, int open, int disconnected, int unopened, List<Integer> inFlight,
			List<Integer> reactiveInFlight) {
	}

	/**
	 * Client events since startup.
	 *
	 * @param reconnectAttempts reconnect attempts
	 * @param reconnectFailures failed reconnect attempts
	 * @param commandTimeouts commands that timed out
	 * @param movedRedirections MOVED redirections followed
	 * @param askRedirections ASK redirections followed
	 */
	public record Events(long reconnectAttempts, long reconnectFailures, long commandTimeouts, long movedRedirections,
			long askRedirections) {
	}

	/**
	 * Cluster topology changes since startup.
	 *
	 * @param changes topology refreshes that changed the client's view
	 * @param lastChange what the last one changed, or {@code null} if none did
	 * @param refreshTriggers how often each adaptive refresh trigger fired
	 */
	public record Topology(long changes, @Nullable TopologyChange lastChange, Map<String, Long> refreshTriggers) {
	}

	/**
	 * What the outage guard sees now.
	 *
	 * @param waitingCommands commands sent on open connections that await a reply
	 * @param unreachable the connections whose commands fail fast, longest outage first
	 * @param connectionsMoved the reconnects that landed on another server address than
	 * the connection had before (a {@code MOVING} notification, a DNS name that moved, a
	 * Sentinel failover, a demoted primary)
	 * @param maintenance the maintenance notifications of the servers
	 */
	public record Outages(long waitingCommands, List<Outage> unreachable, long connectionsMoved,
			Maintenance maintenance) {
	}

	/**
	 * A connection whose commands fail fast.
	 *
	 * @param server the server, as {@code host:port}
	 * @param since when it became unreachable
	 * @param duration how long it has been unreachable
	 * @param rejection why the server refused the last handshake when it refused the
	 * credentials, naming the user, or {@code null}
	 * @param tls why the last TLS handshake failed, naming the side that refused and the
	 * SSL bundle, or {@code null}
	 */
	public record Outage(String server, Instant since, Duration duration, @Nullable String rejection,
			@Nullable String tls) {
	}

	/**
	 * The maintenance notifications of the servers (Redis Enterprise, Redis Cloud).
	 *
	 * @param notifications the notifications the connections received
	 * @param connectionsInWindow the connections in a maintenance window the server
	 * announced and has not yet ended
	 * @param relaxedCommands the commands written to a connection in a window, which
	 * Lettuce gives its relaxed timeout and the stall check lets wait
	 * @param refusal the server that first refused them and its reply, after which new
	 * connections do not ask, or {@code null}
	 */
	public record Maintenance(long notifications, int connectionsInWindow, long relaxedCommands,
			@Nullable String refusal) {
	}

	/**
	 * What the watchdog over the event loops has seen.
	 *
	 * @param threshold how long a loop may not run while commands wait before it counts
	 * as blocked
	 * @param blockedSpells how many times a loop was found blocked since startup
	 * @param blocked the loops blocked now, longest first
	 * @param lastBlocked the last spell that ended, or {@code null}
	 * @param processPauses how many times the whole process was found paused while
	 * commands waited (a long GC pause, CPU throttling), which is blamed on no loop
	 */
	public record EventLoops(Duration threshold, long blockedSpells, List<BlockedLoop> blocked,
			@Nullable BlockedLoop lastBlocked, long processPauses) {
	}

	/**
	 * One spell in which an event loop of the client did not run while commands waited on
	 * its connections.
	 *
	 * @param thread the event loop's thread
	 * @param since when the loop last ran before the spell
	 * @param duration how long it has not run, or did not run
	 * @param waitingCommands the commands that waited for a reply on its connections when
	 * the spell was noticed
	 * @param queuedTasks the tasks, other than the watchdog's probe, that waited in the
	 * loop's queue when the spell was noticed; {@code -1} if the loop does not tell
	 * @param blockedAt the first frame of the thread's stack outside the JDK when the
	 * spell was noticed, usually the application code that blocks it
	 */
	public record BlockedLoop(String thread, Instant since, Duration duration, int waitingCommands, int queuedTasks,
			String blockedAt) {
	}

	/**
	 * The Pub/Sub connections of subscriptions and what reconnects did not restore.
	 *
	 * @param connections the Pub/Sub connections of open subscriptions
	 * @param lost subscriptions found not restored after a reconnect since startup
	 * @param unrestored the subscriptions not restored now, oldest first
	 */
	public record Subscriptions(int connections, long lost, List<Unrestored> unrestored) {
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
	 * Who the client authenticates as, never with what secret, and how its live
	 * connections took new credentials.
	 *
	 * @param user the user the data connections authenticate as, or {@code null} if they
	 * send no credentials
	 * @param source the type of the application's credentials provider or factory, or
	 * {@code null} for Spring Boot's properties
	 * @param choice which credentials bean was taken and why, or why none was
	 * ({@code lettuce.tuning.credentials.provider})
	 * @param rotating whether the provider streams new credentials
	 * @param reauthenticate when Lettuce re-authenticates live connections
	 * ({@code ON_NEW_CREDENTIALS} or {@code DEFAULT}, never)
	 * @param lastIssued when the provider last issued credentials, or {@code null}
	 * @param reauthentications live connections re-authenticated since startup, or
	 * {@code null} when client events are not recorded
	 * @param reauthenticationFailures re-authentications that failed, or {@code null}
	 * @param lastReauthentication when a connection last re-authenticated, or
	 * {@code null}
	 * @param lastReauthenticationFailure when a re-authentication last failed, or
	 * {@code null}
	 */
	public record Credentials(@Nullable String user, @Nullable String source, @Nullable String choice, boolean rotating,
			String reauthenticate, @Nullable Instant lastIssued, @Nullable Long reauthentications,
			@Nullable Long reauthenticationFailures, @Nullable Instant lastReauthentication,
			@Nullable Instant lastReauthenticationFailure) {
	}

	/**
	 * Servers found demoted to replicas while connections to them stayed open, and what
	 * was done.
	 *
	 * @param reconnects how many times a connection was closed because its server had
	 * become a replica
	 * @param minInterval the shortest time between two such reconnects of one connection
	 * @param lastChange the last role change acted on, or {@code null} if there was none
	 */
	public record RoleChanges(long reconnects, Duration minInterval, @Nullable RoleChange lastChange) {
	}

	/**
	 * A role change acted on.
	 *
	 * @param at when
	 * @param server the server that had become a replica, as {@code host:port (address)}
	 * @param endpoint the host name (or address) the connection was made to
	 * @param action what was done
	 * @param failedCommands how many commands waiting on the connection failed
	 */
	public record RoleChange(Instant at, String server, String endpoint, String action, int failedCommands) {
	}

	/**
	 * The near cache: one store in memory behind every near cache, fed by one tracking.
	 *
	 * @param caches the cache names configured, or {@code *} for every cache
	 * @param tracking where the tracking stands: {@code starting}, {@code tracking}
	 * (values are served from memory), {@code interrupted} (lost after it had been on;
	 * reads go to Redis until it is back), {@code unsupported} (never possible here;
	 * every read goes to Redis), {@code closed}, or {@code unused} while no cache manager
	 * has been built with the near cache
	 * @param unsupportedReason why every read goes to Redis for good, or {@code null}
	 * @param interruptions how many times tracking was lost after it had been on
	 * @param entries the entries held, reads waiting for Redis included
	 * @param bound what bounds the store: {@code entries} or {@code bytes}
	 * @param maximum the most entries, or bytes of keys and values, the store keeps
	 * @param bytes the bytes of keys and values held when bounded by bytes, or
	 * {@code null}
	 * @param invalidatedKeys the keys Redis's invalidations named
	 * @param flushes the invalidations of every key ({@code FLUSHALL}, {@code FLUSHDB})
	 * @param evictedBySize the entries evicted to stay within the bound
	 * @param expired the entries dropped when their time to live was up
	 * @param reads the reads of each cache: the caches configured by name, then any other
	 * cache read so far
	 */
	public record NearCache(List<String> caches, String tracking, @Nullable String unsupportedReason,
			long interruptions, long entries, String bound, long maximum, @Nullable Long bytes, long invalidatedKeys,
			long flushes, long evictedBySize, long expired, List<NearCacheReads> reads) {

		/**
		 * Return the reads of all caches together.
		 * @return the sums
		 */
		public NearCacheReads total() {
			long hits = 0;
			long misses = 0;
			long bypassed = 0;
			for (NearCacheReads cache : this.reads) {
				hits += cache.hits();
				misses += cache.misses();
				bypassed += cache.bypassed();
			}
			return new NearCacheReads("*", hits, misses, bypassed);
		}

	}

	/**
	 * The reads of one near cache since startup.
	 *
	 * @param cache the cache name, or {@code *} for all caches together
	 * @param hits reads served from memory
	 * @param misses reads sent to Redis while tracking was on
	 * @param bypassed reads sent to Redis because tracking was not on
	 */
	public record NearCacheReads(String cache, long hits, long misses, long bypassed) {
	}

}
