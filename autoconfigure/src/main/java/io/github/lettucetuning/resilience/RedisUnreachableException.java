package io.github.lettucetuning.resilience;

import java.time.Duration;
import java.time.Instant;

import io.lettuce.core.RedisConnectionException;
import org.jspecify.annotations.Nullable;

/**
 * Fails a command on a connection that has been down for longer than the grace, or whose
 * server stopped answering. Its message names the server and how long it has been
 * unreachable at the moment the message is read, so the exception a caller gets, which
 * Spring translates when the command fails, reports the outage as it stands then. A
 * server that answers but refuses the connection's handshake is not called unreachable:
 * the message says that the TLS handshake fails ({@link #getTlsFailure()}) or that the
 * server refuses the credentials ({@link #getRejection()}).
 * <p>
 * The message starts with {@code DENIED}: Lettuce completes every command queued on a
 * disconnected connection with a connection exception whose message starts so (its
 * handling of Redis' protected mode), and then fails every new command with it until the
 * connection is back. That is the one public way to fail the commands a connection has
 * already queued; see {@code OutageGuard}.
 *
 * @since 0.1.0
 */
public final class RedisUnreachableException extends RedisConnectionException {

	private final String server;

	private final Instant since;

	private final long sinceNanos;

	private final String cause;

	private volatile @Nullable String rejection;

	private volatile @Nullable String tlsFailure;

	RedisUnreachableException(String server, Instant since, long sinceNanos, String cause) {
		super("DENIED");
		this.server = server;
		this.since = since;
		this.sinceNanos = sinceNanos;
		this.cause = cause;
	}

	/**
	 * Return the server, as {@code host:port}.
	 * @return the server
	 */
	public String getServer() {
		return this.server;
	}

	/**
	 * Return when the server became unreachable.
	 * @return the start of the outage
	 */
	public Instant getSince() {
		return this.since;
	}

	/**
	 * Return how long the server has been unreachable.
	 * @return the outage so far
	 */
	public Duration getUnreachableFor() {
		return Duration.ofNanos(System.nanoTime() - this.sinceNanos);
	}

	// The server answers, but refuses the credentials of the connection's handshakes.
	void rejected(String rejection) {
		this.rejection = rejection;
	}

	/**
	 * Return why the server refused the connection's last handshake, when it refused its
	 * credentials ({@code WRONGPASS}, {@code NOAUTH} or {@code NOPERM}).
	 * @return the server's refusal and the user it refused, never a password, or
	 * {@code null} if the server is unreachable for another reason
	 */
	public @Nullable String getRejection() {
		return this.rejection;
	}

	// The server answers, but its TLS handshake with the client fails.
	void tlsFailed(@Nullable String tlsFailure) {
		this.tlsFailure = tlsFailure;
	}

	/**
	 * Return why the TLS handshake of the connection's last attempt failed: which side
	 * refused which certificate, and the SSL bundle of the client's material.
	 * @return the reason, never a key or a password, or {@code null} if the connection is
	 * down for another reason
	 */
	public @Nullable String getTlsFailure() {
		return this.tlsFailure;
	}

	@Override
	public String getMessage() {
		String tlsFailure = this.tlsFailure;
		if (tlsFailure != null) {
			return "DENIED by lettuce-tuning: the TLS handshake with Redis at " + this.server + " fails: " + tlsFailure
					+ "; the connection has been down for " + OutageGuard.seconds(getUnreachableFor()) + " (since "
					+ this.since + "), and commands fail at once until a handshake succeeds";
		}
		String rejection = this.rejection;
		if (rejection != null) {
			return "DENIED by lettuce-tuning: Redis at " + this.server + " answers but " + rejection
					+ "; the connection has been down for " + OutageGuard.seconds(getUnreachableFor()) + " (since "
					+ this.since + "), and commands fail at once until the server accepts its credentials again";
		}
		return "DENIED by lettuce-tuning: Redis at " + this.server + " has been unreachable for "
				+ OutageGuard.seconds(getUnreachableFor()) + " (since " + this.since + ", " + this.cause
				+ "); commands fail at once until it answers again";
	}

	// One instance fails every command of an outage; the grace timer's stack says
	// nothing.
	@Override
	public synchronized Throwable fillInStackTrace() {
		return this;
	}

}
