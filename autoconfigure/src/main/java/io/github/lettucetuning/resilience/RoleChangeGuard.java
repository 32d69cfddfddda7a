package io.github.lettucetuning.resilience;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

import io.github.lettucetuning.socket.ClientAddressResolver;
import io.lettuce.core.protocol.CommandHandler;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.pubsub.PubSubCommandHandler;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Follows a primary that is demoted in place. Managed services (ElastiCache, Azure Cache,
 * Memorystore) fail over by promoting a replica, moving the endpoint's DNS name to it,
 * and making the old primary a replica of the new one; the old primary keeps its client
 * connections. Nothing makes such a connection move, because it is healthy: every write
 * on it fails with {@code READONLY} for as long as the application runs.
 * <p>
 * Here a connection whose server refuses a write with {@code READONLY} is taken for what
 * it is, a sign that the endpoint has moved. The guard makes the client's resolver forget
 * its answers (a {@link ClientAddressResolver} only), fails the commands still waiting on
 * the connection with a {@link RedisRoleChangedException} (the refused write itself has
 * failed with Lettuce's {@code RedisReadOnlyException}), and closes the connection, and
 * the client's other connections to that server (idle ones in a pool would otherwise
 * stay; Pub/Sub connections stay, since a replica still delivers what its primary
 * publishes); Lettuce reconnects at once and resolves the name, or asks Sentinel, again.
 * Failed commands are not retried: the refused write was not applied, and the others were
 * sent to the old server, which may have run them.
 * <p>
 * At most once per connection per interval ({@code minInterval}, plus up to half of it as
 * jitter, so that a fleet does not reconnect in step). If the reconnect reaches the same
 * server and it is still a replica (the name has not moved yet, or the application points
 * at a replica by mistake), the interval doubles on each such round, up to
 * {@link #MAX_INTERVAL}, and one warning says so: a name that moves late is still
 * followed, and a misconfiguration costs one reconnect per connection a minute, not a
 * loop.
 * <p>
 * The cost on the hot path: its handler, just before Lettuce's command handler, looks at
 * the oldest waiting command before each read and, after it, whether that command
 * completed with a {@code READONLY} error; no allocation, no look at the reply's bytes.
 * Under a demotion every write fails, so one of the first reads finds it. Register it
 * only for connections meant to write to one server (standalone, Sentinel without
 * {@code readFrom}): a cluster follows {@code MOVED} itself, and a connection that reads
 * from a replica on purpose must not be moved.
 *
 * @since 0.1.0
 */
// Works around Lettuce keeping a connection to a primary demoted in place:
// docs/upstream.md#a-demoted-primary
public final class RoleChangeGuard implements NettyCustomizer {

	/**
	 * The name of the guard's handler in each channel's pipeline.
	 */
	public static final String HANDLER_NAME = "lettuceTuningRoleChangeGuard";

	/**
	 * The default shortest time between two reconnects of one connection for a role
	 * change.
	 */
	public static final Duration DEFAULT_MIN_INTERVAL = Duration.ofSeconds(2);

	/**
	 * The longest time between two reconnects of one connection that keeps finding the
	 * same replica.
	 */
	public static final Duration MAX_INTERVAL = Duration.ofMinutes(1);

	private static final String READONLY = "READONLY";

	private static final Log logger = LogFactory.getLog(RoleChangeGuard.class);

	private static final AttributeKey<Link> LINK = AttributeKey.valueOf(RoleChangeGuard.class, "link");

	private final Duration minInterval;

	private final LongAdder reconnects = new LongAdder();

	private final Set<RoleChangeHandler> open = ConcurrentHashMap.newKeySet();

	private volatile @Nullable RoleChange lastChange;

	// The last server logged, so that the connections leaving one server log it once.
	private volatile @Nullable String logged;

	private volatile long loggedAtNanos;

	/**
	 * Create a guard.
	 * @param minInterval the shortest time between two reconnects of one connection
	 */
	public RoleChangeGuard(Duration minInterval) {
		if (minInterval.isNegative() || minInterval.isZero()) {
			throw new IllegalArgumentException("minInterval must be positive");
		}
		this.minInterval = minInterval;
	}

	/**
	 * Return the shortest time between two reconnects of one connection.
	 * @return the interval
	 */
	public Duration minInterval() {
		return this.minInterval;
	}

	/**
	 * Return the last role change the guard acted on.
	 * @return the change, or {@code null} if there was none
	 */
	public @Nullable RoleChange lastChange() {
		return this.lastChange;
	}

	/**
	 * Return how many times a connection was closed because its server had become a
	 * replica.
	 * @return the number of reconnects
	 */
	public long reconnects() {
		return this.reconnects.sum();
	}

	// One bootstrap per Lettuce connection; its reconnects reuse it.
	@Override
	public void afterBootstrapInitialized(Bootstrap bootstrap) {
		bootstrap.attr(LINK, new Link(ClientAddressResolver.of(bootstrap.config().resolver())));
	}

	@Override
	public void afterChannelInitialized(Channel channel) {
		ChannelHandlerContext commandHandler = channel.pipeline().context(CommandHandler.class);
		if (commandHandler == null) {
			return;
		}
		Attribute<Link> attribute = channel.attr(LINK);
		attribute.setIfAbsent(new Link(null));
		CommandHandler handler = (CommandHandler) commandHandler.handler();
		channel.pipeline()
			.addBefore(commandHandler.name(), HANDLER_NAME, new RoleChangeHandler(this, attribute.get(),
					handler.getStack(), handler instanceof PubSubCommandHandler));
	}

	void opened(RoleChangeHandler handler) {
		this.open.add(handler);
	}

	void closed(RoleChangeHandler handler) {
		this.open.remove(handler);
	}

	static boolean isReadOnly(RedisCommand<?, ?, ?> command) {
		var output = command.getOutput();
		String error = (output != null) ? output.getError() : null;
		return error != null && error.startsWith(READONLY);
	}

	// On the channel's event loop, after its server refused a write with READONLY.
	void readOnly(RoleChangeHandler handler) {
		String address = act(handler, true);
		if (address == null) {
			return;
		}
		// The other connections to that server would find out at their next write, or,
		// idle in a pool, never: they move now. Subscribers stay: a replica still
		// delivers what its primary publishes.
		for (RoleChangeHandler other : this.open) {
			ChannelHandlerContext context = other.context();
			if (other != handler && !other.isSubscriber() && context != null
					&& address.equals(address(other.server()))) {
				try {
					context.executor().execute(() -> {
						if (context.channel().isActive()) {
							act(other, false);
						}
					});
				}
				catch (RejectedExecutionException ex) {
					// The client is shutting down
				}
			}
		}
	}

	// Closes the connection unless it did so less than the interval ago; returns the
	// server's address if it did.
	private @Nullable String act(RoleChangeHandler handler, boolean found) {
		Link link = handler.link();
		long now = System.nanoTime();
		if (now - link.nextAllowedNanos < 0) {
			return null;
		}
		InetSocketAddress server = handler.server();
		String address = address(server);
		String endpoint = (server != null) ? server.getHostString() : "the endpoint";
		String description = (server != null && !address.startsWith(endpoint + ":"))
				? endpoint + ":" + server.getPort() + " (" + address + ")" : address;
		boolean sameServer = address.equals(link.left);
		link.rounds = sameServer ? link.rounds + 1 : 0;
		link.left = address;
		Duration interval = interval(link.rounds);
		long jitter = ThreadLocalRandom.current().nextLong(interval.toNanos() / 2 + 1);
		link.nextAllowedNanos = now + interval.toNanos() + jitter;
		if (link.resolver != null) {
			link.resolver.forgetAnswers();
		}
		// Recorded before any caller sees its command fail, so that a caller (or a health
		// check) that reacts to the failure finds the change it was told about.
		List<RedisCommand<?, ?, ?>> waiting = unanswered(handler.waiting());
		int failed = waiting.size();
		this.reconnects.increment();
		if (found) {
			String action = sameServer
					? "still a replica after reconnecting (" + endpoint + " still leads to it); reconnecting again, "
							+ "then at most every " + OutageGuard.seconds(interval)
					: "closed the connections to it and reconnecting to the current address of " + endpoint;
			this.lastChange = new RoleChange(Instant.now(), description, endpoint, action, failed);
			log(description, endpoint, sameServer, failed);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Closed an idle connection to " + description + ", which has become a replica (" + failed
					+ " waiting command(s) failed)");
		}
		RedisRoleChangedException failure = new RedisRoleChangedException(description, endpoint);
		waiting.forEach((command) -> command.completeExceptionally(failure));
		ChannelHandlerContext context = handler.context();
		if (context != null) {
			context.channel().close();
		}
		return address;
	}

	private static String address(@Nullable InetSocketAddress server) {
		if (server == null) {
			return "an unknown address";
		}
		InetAddress ip = server.getAddress();
		return ((ip != null) ? ip.getHostAddress() : server.getHostString()) + ":" + server.getPort();
	}

	private Duration interval(int rounds) {
		Duration interval = this.minInterval.multipliedBy(1L << Math.min(rounds, 16));
		Duration max = (this.minInterval.compareTo(MAX_INTERVAL) > 0) ? this.minInterval : MAX_INTERVAL;
		return (interval.compareTo(max) > 0) ? max : interval;
	}

	// The commands taken off the queue that no reply or timeout has completed yet.
	private static List<RedisCommand<?, ?, ?>> unanswered(Queue<RedisCommand<?, ?, ?>> waiting) {
		List<RedisCommand<?, ?, ?>> unanswered = new ArrayList<>(waiting.size());
		RedisCommand<?, ?, ?> command;
		while ((command = waiting.poll()) != null) {
			if (!command.isDone()) {
				unanswered.add(command);
			}
		}
		return unanswered;
	}

	// The first connection leaving a server logs at WARN, once a minute at most; the
	// others at DEBUG.
	private void log(String server, String endpoint, boolean sameServer, int failed) {
		long now = System.nanoTime();
		String tag = server + (sameServer ? " again" : "");
		boolean first = !tag.equals(this.logged) || now - this.loggedAtNanos > MAX_INTERVAL.toNanos();
		if (first) {
			this.logged = tag;
			this.loggedAtNanos = now;
		}
		if (!first) {
			if (logger.isDebugEnabled()) {
				logger.debug("Closed another connection to " + server + ", a replica" + (sameServer ? " still" : "")
						+ " (" + failed + " waiting command(s) failed)");
			}
			return;
		}
		String message = sameServer ? "Redis at " + server + " is still a replica after reconnecting: " + endpoint
				+ " still leads to a server that refuses writes with READONLY. Writes fail until it leads to the "
				+ "primary; if it is not in the middle of a failover, check that spring.data.redis.host (or the "
				+ "Sentinel master) names the primary endpoint and not a replica or reader endpoint. Connections to it "
				+ "reconnect at a doubling interval, at most every " + OutageGuard.seconds(MAX_INTERVAL)
				: "Redis at " + server + " has become a replica: it refused a write with READONLY. Closed the "
						+ "connection (" + failed + " waiting command(s) failed, not retried) and reconnecting to the "
						+ "current address of " + endpoint;
		logger.warn(message);
	}

	/**
	 * A role change the guard acted on.
	 *
	 * @param at when
	 * @param server the server that had become a replica, as {@code host:port (address)}
	 * @param endpoint the host name (or address) the connection was made to
	 * @param action what the guard did
	 * @param failedCommands how many commands waiting on the connection failed
	 */
	public record RoleChange(Instant at, String server, String endpoint, String action, int failedCommands) {

	}

	// One Lettuce connection across its reconnects. Its channels follow one another,
	// possibly on different event loops: the fields are volatile.
	static final class Link {

		private final @Nullable ClientAddressResolver resolver;

		// The address the last role change left.
		private volatile @Nullable String left;

		// How many reconnects in a row found the server they left still a replica.
		private volatile int rounds;

		private volatile long nextAllowedNanos = System.nanoTime();

		Link(@Nullable ClientAddressResolver resolver) {
			this.resolver = resolver;
		}

	}

}
