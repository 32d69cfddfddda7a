package io.github.lettucetuning.socket;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The socket settings lettuce-tuning applies to every Lettuce connection: the transport
 * in use, TCP keep-alive and TCP_USER_TIMEOUT, each with whether it is active. A setting
 * can be asked for and still be inactive, e.g. TCP_USER_TIMEOUT without a native
 * transport; {@link #inactiveReason()} then says why.
 *
 * @param transport the Netty transport Lettuce uses in this JVM
 * @param keepAlive the TCP keep-alive settings
 * @param tcpUserTimeout the TCP_USER_TIMEOUT setting
 * @param inactiveReason why a requested setting is inactive, or {@code null}
 * @since 0.1.0
 */
public record EffectiveSocketSettings(NettyTransport transport, KeepAlive keepAlive, TcpUserTimeout tcpUserTimeout,
		@Nullable String inactiveReason) {

	/**
	 * Return a one-line description, for logs and diagnostics.
	 * @return the description
	 */
	public String describe() {
		return "transport=" + this.transport.displayName() + ", keep-alive=" + this.keepAlive.describe()
				+ ", tcp-user-timeout=" + this.tcpUserTimeout.describe();
	}

	/**
	 * TCP keep-alive: probes sent on an idle connection, and the connection dropped when
	 * {@code count} of them go unanswered.
	 *
	 * @param active whether keep-alive is on
	 * @param extended whether idle, interval and count are applied (otherwise the
	 * operating system's defaults apply, about two hours on Linux and macOS)
	 * @param idle idle time before the first probe, {@code null} when not extended
	 * @param interval time between probes, {@code null} when not extended
	 * @param count unanswered probes before the connection is dropped, {@code null} when
	 * not extended
	 */
	public record KeepAlive(boolean active, boolean extended, @Nullable Duration idle, @Nullable Duration interval,
			@Nullable Integer count) {

		/**
		 * Return the time after which an idle connection to a dead peer is dropped.
		 * @return idle + interval x count, or {@code null} when not extended
		 */
		public @Nullable Duration detectionTime() {
			if (!this.active || !this.extended || this.idle == null || this.interval == null || this.count == null) {
				return null;
			}
			return this.idle.plus(this.interval.multipliedBy(this.count));
		}

		String describe() {
			if (!this.active) {
				return "off";
			}
			if (!this.extended) {
				return "on (operating system timings)";
			}
			return "idle " + this.idle.toSeconds() + "s, interval " + this.interval.toSeconds() + "s, count "
					+ this.count;
		}

	}

	/**
	 * TCP_USER_TIMEOUT: how long sent data may stay unacknowledged before the kernel
	 * drops the connection.
	 *
	 * @param active whether it is set on the sockets
	 * @param timeout the timeout, {@code null} when inactive
	 */
	public record TcpUserTimeout(boolean active, @Nullable Duration timeout) {

		String describe() {
			return (this.active && this.timeout != null) ? this.timeout.toMillis() + "ms" : "off";
		}

	}

}
