package io.github.lettucetuning.resilience;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.protocol.Endpoint;
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

	// The exception commands fail with now: it learns of a rejection that comes later.
	private volatile @Nullable RedisUnreachableException failure;

	// Tells a grace timer whether the outage it was started for is still the current one.
	private volatile long outage;

	// The newest channel: the one in use, or the one a reconnect is opening. Lettuce
	// makes a new channel live before its active event reaches the guard at the tail,
	// so the guard notes a channel when it starts to connect; a late inactive event of a
	// replaced channel must not mark the live connection down, nor fail its commands.
	private volatile @Nullable Channel channel;

	ConnectionLink(OutageGuard guard) {
		this.guard = guard;
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
		this.failure = null;
		this.guard.reachable(this);
		if (wasDown) {
			this.guard.serverBack(this.server, downSinceNanos);
		}
	}

	// A command written before the channel is active belongs to Lettuce's handshake.
	void handshakeWritten(Object message) {
		if (message instanceof CompleteableCommand<?> command) {
			command.onComplete((result, failure) -> handshakeCompleted(failure));
		}
		else if (message instanceof Collection<?> commands) {
			commands.forEach(this::handshakeWritten);
		}
	}

	private void handshakeCompleted(@Nullable Throwable failure) {
		String rejection = (failure != null) ? CredentialsRejection.describe(failure, this.guard.credentialsUser())
				: null;
		if (rejection == null) {
			return;
		}
		this.rejection = rejection;
		RedisUnreachableException current = this.failure;
		if (current != null) {
			current.rejected(rejection);
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
			this.guard.reachable(this);
			return;
		}
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
			declareUnreachable();
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
		this.failure = failure;
		endpoint.notifyException(failure);
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
