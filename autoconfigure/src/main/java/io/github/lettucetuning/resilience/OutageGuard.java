package io.github.lettucetuning.resilience;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import io.github.lettucetuning.eventloop.EventLoopWatchdog;
import io.github.lettucetuning.eventloop.LoopWatch;
import io.lettuce.core.protocol.CommandHandler;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.EventExecutor;
import org.jspecify.annotations.Nullable;

/**
 * Bounds what a Redis outage costs callers, on every connection of the client resources
 * it is registered with (shared, dedicated, Pub/Sub, cluster node and Sentinel
 * connections alike).
 * <p>
 * <b>Fail fast.</b> Lettuce keeps the commands of a disconnected connection until it is
 * back, so every caller waits out the outage or the command timeout, and all of them
 * replay at once when Redis returns. Here a connection gets a grace (about a second: a
 * {@code CLUSTER FAILOVER}, a {@code CLIENT KILL} or a Sentinel switch reconnect well
 * within it and stay invisible). When the grace runs out and the connection is still
 * down, the commands it queued fail with a {@link RedisUnreachableException}, and so does
 * every new command, at once, until the connection is back. A command whose caller saw it
 * fail is never sent later: Lettuce drops completed commands when it replays its queue.
 * <p>
 * <b>Stalls.</b> A server that stops answering while its socket stays open
 * ({@code SIGSTOP}, a stuck fork, a runaway script) looks healthy to TCP. When commands
 * wait and nothing has been read for the stall timeout, the waiting commands fail with a
 * {@link RedisStalledException}, the connection is closed, and it counts as unreachable
 * at once; Lettuce reconnects as usual and traffic resumes when the server answers again.
 * <p>
 * <b>Blocked event loops.</b> A loop that the application blocks reads nothing either;
 * with an {@link EventLoopWatchdog} the guard tells it of every command written, so that
 * the watchdog notices and names such a loop, and stall detection looks a second time
 * before it blames the server (see {@link OutageHandler}).
 * <p>
 * Register it with {@code ClientResources.Builder#nettyCustomizer}: Lettuce calls it for
 * every connection and every channel a reconnect opens.
 *
 * @since 0.1.0
 */
public final class OutageGuard implements NettyCustomizer {

	/**
	 * The name of the guard's handler in each channel's pipeline.
	 */
	public static final String HANDLER_NAME = "lettuceTuningOutageGuard";

	private static final AttributeKey<ConnectionLink> LINK = AttributeKey.valueOf(OutageGuard.class, "link");

	private final OutageOptions options;

	private final @Nullable EventLoopWatchdog watchdog;

	private final Set<ConnectionLink> unreachable = ConcurrentHashMap.newKeySet();

	private final Set<OutageHandler> open = ConcurrentHashMap.newKeySet();

	private volatile Supplier<@Nullable String> credentialsUser = () -> null;

	private volatile @Nullable String sslBundle;

	private final MaintenanceNotifications maintenanceNotifications = new MaintenanceNotifications();

	private final LongAdder connectionsMoved = new LongAdder();

	/**
	 * Create a guard.
	 * @param options what it does
	 */
	public OutageGuard(OutageOptions options) {
		this(options, null);
	}

	/**
	 * Create a guard that also keeps a watchdog informed of the commands written.
	 * @param options what it does
	 * @param watchdog the watchdog over the event loops, if any
	 */
	public OutageGuard(OutageOptions options, @Nullable EventLoopWatchdog watchdog) {
		this.options = options;
		this.watchdog = watchdog;
	}

	/**
	 * Return the watchdog over the event loops.
	 * @return the watchdog, or {@code null} if blocked loops are not detected
	 */
	public @Nullable EventLoopWatchdog watchdog() {
		return this.watchdog;
	}

	/**
	 * Return what the guard does.
	 * @return the options
	 */
	public OutageOptions options() {
		return this.options;
	}

	/**
	 * Tell the guard which user the client authenticates as, so that a connection the
	 * server refuses for its credentials is reported naming that user.
	 * @param credentialsUser supplies the user, or {@code null} when the client sends no
	 * credentials
	 */
	public void credentialsUser(Supplier<@Nullable String> credentialsUser) {
		this.credentialsUser = credentialsUser;
	}

	/**
	 * Return what the guard learned of the servers' answers to Lettuce's request for
	 * maintenance notifications; clients registered there stop asking once a server
	 * refused.
	 * @return the maintenance notifications
	 */
	public MaintenanceNotifications maintenanceNotifications() {
		return this.maintenanceNotifications;
	}

	@Nullable String credentialsUser() {
		return this.credentialsUser.get();
	}

	/**
	 * Tell the guard which SSL bundle the client's key and trust material come from, so
	 * that a failed TLS handshake is reported naming it.
	 * @param sslBundle the bundle's name, or {@code null} when none is named
	 */
	public void sslBundle(@Nullable String sslBundle) {
		this.sslBundle = sslBundle;
	}

	@Nullable String sslBundle() {
		return this.sslBundle;
	}

	// One bootstrap per Lettuce connection; its reconnects reuse it, so every channel of
	// the connection carries the same link.
	@Override
	public void afterBootstrapInitialized(Bootstrap bootstrap) {
		bootstrap.attr(LINK, new ConnectionLink(this));
	}

	@Override
	public void afterChannelInitialized(Channel channel) {
		Attribute<ConnectionLink> attribute = channel.attr(LINK);
		attribute.setIfAbsent(new ConnectionLink(this));
		channel.pipeline().addLast(HANDLER_NAME, new OutageHandler(attribute.get(), this.options));
		ChannelHandlerContext commandHandler = channel.pipeline().context(CommandHandler.class);
		if (commandHandler != null && this.options.failFast()) {
			channel.pipeline()
				.addBefore(commandHandler.name(), UnansweredCommands.HANDLER_NAME, new UnansweredCommands(
						attribute.get(), ((CommandHandler) commandHandler.handler()).getStack()));
		}
	}

	/**
	 * Return the connections whose grace has run out, or that stalled, and are not back
	 * yet, longest outage first.
	 * @return the outages
	 */
	public List<Outage> outages() {
		List<Outage> outages = new ArrayList<>();
		for (ConnectionLink link : this.unreachable) {
			if (link.isClosed() || !link.isUnreachable()) {
				this.unreachable.remove(link);
			}
			else {
				outages.add(new Outage(link.server(), link.downSince(), link.downFor(), link.rejection(),
						link.tlsFailure()));
			}
		}
		outages.sort(Comparator.comparing(Outage::since));
		return outages;
	}

	/**
	 * Return how many commands wait for a reply on the open connections, for a gauge.
	 * @return the commands sent and not yet answered
	 */
	public long waitingCommands() {
		long waiting = 0;
		for (OutageHandler handler : this.open) {
			waiting += handler.waitingCommands();
		}
		return waiting;
	}

	/**
	 * Return how many reconnects landed on another server address than the connection had
	 * before: the endpoint moved (a {@code MOVING} notification, a DNS name that changed,
	 * a Sentinel failover, a demoted primary).
	 * @return the connections moved since start
	 */
	public long connectionsMoved() {
		return this.connectionsMoved.sum();
	}

	void connectionMoved() {
		this.connectionsMoved.increment();
	}

	@Nullable LoopWatch watch(EventExecutor loop) {
		return (this.watchdog != null) ? this.watchdog.watch(loop) : null;
	}

	void opened(OutageHandler handler) {
		this.open.add(handler);
	}

	void closed(OutageHandler handler) {
		this.open.remove(handler);
	}

	// A server that restarted while its resets could not reach the client (a partition, a
	// host that rebooted) leaves the client's connections half-open. A data connection
	// learns it from the reset its next command gets; a Pub/Sub connection sends nothing
	// and would hear nothing until TCP keep-alive gives up. Once another connection to
	// that server is back, each subscriber that heard nothing since the outage began is
	// probed: a half-open one gets a reset and resubscribes, a live one answers.
	void serverBack(String server, long downSinceNanos) {
		for (OutageHandler handler : this.open) {
			handler.probeIfSilentSince(server, downSinceNanos);
		}
	}

	// Connections closed while unreachable (a cluster node that left) send no event: drop
	// them here, so the set never outgrows the connections that exist.
	void unreachable(ConnectionLink link) {
		this.unreachable.removeIf(ConnectionLink::isClosed);
		this.unreachable.add(link);
	}

	void reachable(ConnectionLink link) {
		this.unreachable.remove(link);
	}

	static String seconds(Duration duration) {
		return String.format(Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
	}

	/**
	 * A connection that is unreachable.
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

}
