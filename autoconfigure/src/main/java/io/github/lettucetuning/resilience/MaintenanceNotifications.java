package io.github.lettucetuning.resilience;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.MaintNotificationsConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Stops a client from asking for maintenance notifications once a server refused them.
 * <p>
 * Lettuce 7 ends every handshake with {@code CLIENT MAINT_NOTIFICATIONS ON} (its
 * {@code MaintNotificationsConfig} is enabled by default), fire and forget. Redis
 * Enterprise and Redis Cloud answer it; a server that does not know the subcommand (Redis
 * OSS, Valkey) or a user that may not run it answers with an error, on every connection,
 * and each error counts in the server's {@code errorstat_ERR}. The {@link OutageGuard}
 * sees the handshake's commands, and tells this class of the first refusal; the clients
 * registered here then get the same client options with the notifications disabled,
 * through Lettuce's public {@code setOptions}. Lettuce reads the options when it opens a
 * connection, so connections opened afterwards no longer ask; those already open keep the
 * handshake they were built with, also on their reconnects. A server that accepts the
 * request is never refused, so it keeps getting it, as without the starter.
 *
 * @since 0.1.0
 */
public final class MaintenanceNotifications {

	private static final Log logger = LogFactory.getLog(MaintenanceNotifications.class);

	private static final String SUBCOMMAND = "MAINT_NOTIFICATIONS";

	private final Set<AbstractRedisClient> clients = Collections
		.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

	private final AtomicLong refusals = new AtomicLong();

	private final AtomicReference<@Nullable String> refusal = new AtomicReference<>();

	private final AtomicLong received = new AtomicLong();

	private final AtomicInteger windows = new AtomicInteger();

	private final LongAdder relaxedCommands = new LongAdder();

	/**
	 * Register a client that stops asking once a server refused the notifications; if one
	 * already did, it stops at once. The client is held weakly: one that is no longer
	 * used needs no unregistering.
	 * @param client the client
	 */
	public void register(AbstractRedisClient client) {
		this.clients.add(client);
		if (this.refusal.get() != null) {
			stopAsking(client);
		}
	}

	/**
	 * Return the first refusal.
	 * @return the server and its reply, or {@code null} if no server refused
	 */
	public @Nullable String refusal() {
		return this.refusal.get();
	}

	/**
	 * Return how many handshakes asked for the notifications and were refused.
	 * @return the refusals since start
	 */
	public long refusals() {
		return this.refusals.get();
	}

	/**
	 * Return how many maintenance notifications ({@code MIGRATING}, {@code MIGRATED},
	 * {@code FAILING_OVER}, {@code FAILED_OVER}, {@code MOVING}) the connections
	 * received.
	 * @return the notifications since start
	 */
	public long received() {
		return this.received.get();
	}

	/**
	 * Return how many connections are in an announced maintenance window: the server
	 * announced a migration, failover or move and has not announced its end.
	 * @return the connections in a window
	 */
	public int connectionsInWindow() {
		return Math.max(0, this.windows.get());
	}

	/**
	 * Return how long an announced window outlives a channel the server closed in it: the
	 * relaxed timeout Lettuce applies in a window ({@code TimeoutOptions}'
	 * {@code relaxedTimeoutsDuringMaintenance}, 10 s unless set), the longest of the
	 * registered clients'. Lettuce relaxes nothing when it is disabled, and then neither
	 * does the window: it ends with its channel.
	 * @return how long a window is carried over a reconnect
	 */
	public Duration windowCarry() {
		List<AbstractRedisClient> clients = registeredClients();
		if (clients.isEmpty()) {
			return TimeoutOptions.DEFAULT_RELAXED_TIMEOUT;
		}
		Duration carry = Duration.ZERO;
		for (AbstractRedisClient client : clients) {
			Duration relaxed = client.getOptions().getTimeoutOptions().getRelaxedTimeout();
			if (relaxed != null && relaxed.compareTo(carry) > 0) {
				carry = relaxed;
			}
		}
		return carry;
	}

	/**
	 * Return how many commands were written to a connection in an announced window: those
	 * Lettuce gives its relaxed timeout, and the stall check lets wait.
	 * @return the commands since start
	 */
	public long relaxedCommands() {
		return this.relaxedCommands.sum();
	}

	void commandsRelaxed(int count) {
		this.relaxedCommands.add(count);
	}

	void notificationReceived() {
		this.received.incrementAndGet();
	}

	void windowOpened() {
		this.windows.incrementAndGet();
	}

	void windowClosed() {
		this.windows.decrementAndGet();
	}

	/**
	 * Tell whether a handshake command is Lettuce's request for maintenance
	 * notifications.
	 * @param command a command of a handshake
	 * @return whether it is {@code CLIENT MAINT_NOTIFICATIONS}
	 */
	static boolean isRequest(RedisCommand<?, ?, ?> command) {
		return command.getType() == CommandType.CLIENT && command.getArgs() != null
				&& command.getArgs().toCommandString().toUpperCase(Locale.ROOT).startsWith(SUBCOMMAND);
	}

	// Any error reply means this server, for this user, will refuse every later request
	// too: the request is a subcommand it does not know, or one the user may not run.
	void refused(String server, Throwable failure) {
		this.refusals.incrementAndGet();
		String reply = String.valueOf(failure.getMessage()).lines().findFirst().orElse("");
		if (!this.refusal.compareAndSet(null, server + " (" + reply + ")")) {
			return;
		}
		List<AbstractRedisClient> clients = registeredClients();
		if (clients.isEmpty()) {
			logger.debug("Redis at " + server + " refused maintenance notifications (" + reply + ")");
			return;
		}
		logger.info("Redis at " + server + " refused maintenance notifications (" + reply
				+ "); connections opened from now on do not ask for them");
		clients.forEach(MaintenanceNotifications::stopAsking);
	}

	// A synchronized set must be copied under its lock before it is iterated.
	private List<AbstractRedisClient> registeredClients() {
		synchronized (this.clients) {
			return List.copyOf(this.clients);
		}
	}

	private static void stopAsking(AbstractRedisClient client) {
		if (!client.getOptions().getMaintNotificationsConfig().maintNotificationsEnabled()) {
			return;
		}
		if (client instanceof RedisClusterClient cluster
				&& cluster.getOptions() instanceof ClusterClientOptions options) {
			cluster.setOptions((ClusterClientOptions) withoutNotifications(options.mutate(), options).build());
		}
		else if (client instanceof RedisClient redis) {
			ClientOptions options = redis.getOptions();
			redis.setOptions(withoutNotifications(options.mutate(), options).build());
		}
	}

	// docs/upstream.md#maintenance-notifications-a-server-refused
	private static ClientOptions.Builder withoutNotifications(ClientOptions.Builder builder, ClientOptions options) {
		builder.useHashIndexQueue(options.isUseHashIndexedQueue());
		if (options.getReplayFilter() != null) {
			builder.replayFilter(options.getReplayFilter());
		}
		if (options.getJsonParser() != null) {
			builder.jsonParser(options.getJsonParser());
		}
		return builder.maintNotificationsConfig(MaintNotificationsConfig.disabled());
	}

}
