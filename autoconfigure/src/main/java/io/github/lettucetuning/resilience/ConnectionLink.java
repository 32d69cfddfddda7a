package io.github.lettucetuning.resilience;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.protocol.Endpoint;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.channel.Channel;
import org.jspecify.annotations.Nullable;

/**
 * One Lettuce connection as the {@link OutageGuard} follows it, across the channels its
 * reconnects open: whether it is up, since when it is down, and whether its grace has run
 * out. Channel events of one connection happen one after the other, but on whichever
 * event loop the current channel has, and the health check reads the state from its own
 * thread: the fields are volatile.
 */
final class ConnectionLink {

	private final OutageGuard guard;

	private volatile @Nullable Endpoint endpoint;

	private volatile String server = "an unknown address";

	private volatile boolean down;

	private volatile long downSinceNanos;

	private volatile Instant downSince = Instant.EPOCH;

	private volatile boolean unreachable;

	private volatile @Nullable String stallCause;

	// Why the server refused the last handshake, when it refused the credentials.
	private volatile @Nullable String rejection;

	// Why the last connection attempt failed, when its TLS handshake did.
	private volatile @Nullable String tlsFailure;

	// The exception commands fail with now: it learns of a rejection that comes later.
	private volatile @Nullable RedisUnreachableException failure;

	// Tells a grace timer whether the outage it was started for is still the current one.
	private volatile long outage;

	// The newest channel: the one in use, or the one a reconnect is opening. Lettuce
	// makes a new channel live before its active event reaches the guard at the tail,
	// so the guard notes a channel when it starts to connect; a late inactive event of a
	// replaced channel must not mark the live connection down, nor fail its commands.
	private volatile @Nullable Channel channel;

	// The address the last channel connected to, resolved: a reconnect elsewhere is a
	// move.
	private volatile @Nullable SocketAddress connectedTo;

	// The commands the last channel sent and got no reply for when it closed: Lettuce
	// sends them again after a reconnect, but they must not fail as never sent.
	private volatile List<RedisCommand<?, ?, ?>> unanswered = List.of();

	// One per connection, like the watchdog of Lettuce's that tells it of windows.
	private final MaintenanceWindow maintenanceWindow;

	ConnectionLink(OutageGuard guard) {
		this.guard = guard;
		this.maintenanceWindow = new MaintenanceWindow(guard.maintenanceNotifications());
	}

	MaintenanceWindow maintenanceWindow() {
		return this.maintenanceWindow;
	}

	OutageGuard guard() {
		return this.guard;
	}

	void attach(Endpoint endpoint) {
		this.endpoint = endpoint;
	}

	void connecting(Channel channel, SocketAddress address) {
		this.channel = channel;
		this.server = describe(address);
	}

	void connected(Channel channel) {
		boolean wasDown = this.down;
		long downSinceNanos = this.downSinceNanos;
		this.channel = channel;
		this.outage++;
		this.down = false;
		this.unreachable = false;
		this.stallCause = null;
		this.rejection = null;
		this.tlsFailure = null;
		this.failure = null;
		this.maintenanceWindow.end();
		// Sent again on this channel, as on stock Lettuce.
		this.unanswered = List.of();
		noteAddress(channel.remoteAddress());
		this.guard.reachable(this);
		if (wasDown) {
			this.guard.serverBack(this.server, downSinceNanos);
		}
	}

	// Only the channel that was up counts: a reconnect that fails leaves its handshake
	// unanswered, and must not replace what the outage began with.
	void unanswered(List<RedisCommand<?, ?, ?>> commands) {
		if (!this.down) {
			this.unanswered = commands;
		}
	}

	private void noteAddress(@Nullable SocketAddress address) {
		SocketAddress before = this.connectedTo;
		this.connectedTo = address;
		if (before != null && address != null && !before.equals(address)) {
			this.guard.connectionMoved();
		}
	}

	// A command written before the channel is active belongs to Lettuce's handshake.
	void handshakeWritten(Object message) {
		if (message instanceof CompleteableCommand<?> command) {
			if (command instanceof RedisCommand<?, ?, ?> request && MaintenanceNotifications.isRequest(request)) {
				command.onComplete((result, failure) -> maintenanceNotificationsAnswered(failure));
				return;
			}
			command.onComplete((result, failure) -> handshakeCompleted(failure));
		}
		else if (message instanceof Collection<?> commands) {
			commands.forEach(this::handshakeWritten);
		}
	}

	// Lettuce sends the request fire and forget: a refusal does not fail the handshake,
	// nor is it a refusal of the credentials.
	private void maintenanceNotificationsAnswered(@Nullable Throwable failure) {
		if (failure != null) {
			this.guard.maintenanceNotifications().refused(this.server, failure);
		}
	}

	private void handshakeCompleted(@Nullable Throwable failure) {
		String rejection = (failure != null) ? CredentialsRejection.describe(failure, this.guard.credentialsUser())
				: null;
		if (rejection == null) {
			// With TLS 1.3 a server's refusal of the client certificate arrives after the
			// client's side of the TLS handshake, as the failure of the first command.
			if (failure != null) {
				tlsFailed(failure);
			}
			return;
		}
		// The server answered a command: this attempt's TLS handshake, if any, succeeded.
		this.rejection = rejection;
		this.tlsFailure = null;
		RedisUnreachableException current = this.failure;
		if (current != null) {
			current.rejected(rejection);
			current.tlsFailed(null);
		}
	}

	// A failed TLS handshake: the server answers, but one side refuses the other's
	// certificate.
	void tlsFailed(Throwable cause) {
		String tlsFailure = TlsFailure.describe(cause, this.guard.sslBundle());
		if (tlsFailure == null) {
			return;
		}
		this.tlsFailure = tlsFailure;
		RedisUnreachableException current = this.failure;
		if (current != null) {
			current.tlsFailed(tlsFailure);
		}
	}

	// The server does not even take a TCP connection now: whatever a TLS handshake said
	// before no longer explains the outage.
	void connectFailed() {
		this.tlsFailure = null;
		RedisUnreachableException current = this.failure;
		if (current != null) {
			current.tlsFailed(null);
		}
	}

	// Unreachable at once: the stall timeout served as the grace.
	void stalled(long sinceNanos, String cause) {
		this.stallCause = cause;
		markDown(sinceNanos);
		listUnreachable();
	}

	void disconnected(Channel channel) {
		Channel current = this.channel;
		if (current != null && current != channel && current.isActive()) {
			return;
		}
		if (isClosed()) {
			this.maintenanceWindow.end();
			this.guard.reachable(this);
			return;
		}
		carryMaintenanceWindow(channel);
		boolean wentDown = markDown(System.nanoTime());
		OutageOptions options = this.guard.options();
		if (!options.failFast()) {
			return;
		}
		// A stall already waited its timeout; a failed handshake after the grace may have
		// put Lettuce's own error in place of ours.
		if (this.stallCause != null || this.unreachable) {
			declareUnreachable();
			return;
		}
		// A failed handshake within the grace: the grace started with the outage is still
		// running.
		if (!wentDown) {
			return;
		}
		long outage = this.outage;
		long delay = this.downSinceNanos + options.grace().toNanos() - System.nanoTime();
		try {
			channel.eventLoop().schedule(() -> graceEnded(outage), Math.max(0, delay), TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// The client is shutting down: nothing left to fail.
		}
	}

	// Whether the connection was up until now: only the start of an outage starts its
	// grace.
	private boolean markDown(long sinceNanos) {
		if (this.down) {
			return false;
		}
		this.outage++;
		this.downSinceNanos = sinceNanos;
		this.downSince = Instant.now().minusNanos(System.nanoTime() - sinceNanos);
		this.down = true;
		return true;
	}

	private void graceEnded(long outage) {
		if (this.down && this.outage == outage && !isClosed()) {
			long windowLeft = this.maintenanceWindow.carriedUntilNanos() - System.nanoTime();
			if (this.maintenanceWindow.isOpen() && windowLeft > 0) {
				// The server announced maintenance: its reconnect gets the window's time.
				scheduleGraceEnd(outage, windowLeft);
				return;
			}
			declareUnreachable();
		}
	}

	private void carryMaintenanceWindow(Channel channel) {
		Duration carry = this.guard.maintenanceNotifications().windowCarry();
		if (this.maintenanceWindow.channelClosed(carry)) {
			try {
				channel.eventLoop().schedule(this::endCarriedWindow, carry.toNanos(), TimeUnit.NANOSECONDS);
			}
			catch (RejectedExecutionException ex) {
				this.maintenanceWindow.end();
			}
		}
	}

	private void endCarriedWindow() {
		if (this.down && !this.maintenanceWindow.isOpen()) {
			this.maintenanceWindow.end();
		}
	}

	private void scheduleGraceEnd(long outage, long delayNanos) {
		Channel channel = this.channel;
		try {
			if (channel != null) {
				channel.eventLoop().schedule(() -> graceEnded(outage), delayNanos, TimeUnit.NANOSECONDS);
			}
		}
		catch (RejectedExecutionException ex) {
			// The client is shutting down: nothing left to fail.
		}
	}

	private void declareUnreachable() {
		Endpoint endpoint = this.endpoint;
		if (endpoint == null) {
			return;
		}
		listUnreachable();
		String cause = this.stallCause;
		// Works around Lettuce having no public way to fail the commands a disconnected
		// connection has buffered: its DENIED (protected-mode) path does it.
		// docs/upstream.md#fail-fast-through-denied
		RedisUnreachableException failure = new RedisUnreachableException(this.server, this.downSince,
				this.downSinceNanos, (cause != null) ? cause : "disconnected, reconnecting");
		String rejection = this.rejection;
		if (rejection != null) {
			failure.rejected(rejection);
		}
		failure.tlsFailed(this.tlsFailure);
		this.failure = failure;
		failUnanswered();
		endpoint.notifyException(failure);
	}

	// Before Lettuce fails its queue as never sent: a command done by then is dropped
	// from the queue, never written again. Only while the connection is down: between a
	// reconnect's sending the queue again and its active event reaching the guard (the
	// same event loop turn), a command may be both sent again and failed here, which the
	// exception allows for.
	private void failUnanswered() {
		List<RedisCommand<?, ?, ?>> unanswered = this.unanswered;
		this.unanswered = List.of();
		if (unanswered.isEmpty()) {
			return;
		}
		RedisConnectionLostException lost = new RedisConnectionLostException(this.server,
				Duration.ofNanos(System.nanoTime() - this.downSinceNanos));
		for (RedisCommand<?, ?, ?> command : unanswered) {
			if (!command.isDone()) {
				command.completeExceptionally(lost);
			}
		}
	}

	// Called before any caller sees its command fail, so a caller (or a health check)
	// that reacts to the failure finds the outage it was told about.
	private void listUnreachable() {
		this.unreachable = true;
		this.guard.unreachable(this);
	}

	boolean isClosed() {
		return this.endpoint instanceof DefaultEndpoint defaultEndpoint && defaultEndpoint.isClosed();
	}

	boolean isUnreachable() {
		return this.unreachable;
	}

	String server() {
		return this.server;
	}

	@Nullable String rejection() {
		return this.rejection;
	}

	@Nullable String tlsFailure() {
		return this.tlsFailure;
	}

	Instant downSince() {
		return this.downSince;
	}

	Duration downFor() {
		return Duration.ofNanos(System.nanoTime() - this.downSinceNanos);
	}

	private static String describe(SocketAddress address) {
		if (address instanceof InetSocketAddress inet) {
			return inet.getHostString() + ":" + inet.getPort();
		}
		return String.valueOf(address);
	}

}
