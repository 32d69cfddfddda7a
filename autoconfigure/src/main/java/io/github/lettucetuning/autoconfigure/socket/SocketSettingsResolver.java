package io.github.lettucetuning.autoconfigure.socket;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.socket.EffectiveSocketSettings;
import io.github.lettucetuning.socket.EffectiveSocketSettings.KeepAlive;
import io.github.lettucetuning.socket.EffectiveSocketSettings.TcpUserTimeout;
import io.github.lettucetuning.socket.NettyTransport;
import org.jspecify.annotations.Nullable;

/**
 * Decides which of the requested socket settings can take effect on this platform.
 *
 * @author lettuce-tuning
 */
final class SocketSettingsResolver {

	private SocketSettingsResolver() {
	}

	/**
	 * Resolve the settings in effect.
	 * @param socket the requested settings
	 * @param transport the transport Lettuce uses
	 * @param extendedKeepAliveSupported whether keep-alive idle, interval and count can be
	 * set (Lettuce's {@code ExtendedKeepAliveSupport.isSupported()})
	 * @return the settings in effect
	 */
	static EffectiveSocketSettings resolve(LettuceTuningProperties.Socket socket, NettyTransport transport,
			boolean extendedKeepAliveSupported) {
		LettuceTuningProperties.KeepAlive requestedKeepAlive = socket.getKeepAlive();
		KeepAlive keepAlive = keepAlive(requestedKeepAlive, extendedKeepAliveSupported);
		boolean tcpUserTimeoutRequested = socket.getTcpUserTimeout().isEnabled();
		boolean tcpUserTimeoutActive = tcpUserTimeoutRequested && transport.supportsTcpUserTimeout();
		TcpUserTimeout tcpUserTimeout = new TcpUserTimeout(tcpUserTimeoutActive,
				tcpUserTimeoutActive ? tcpUserTimeout(socket) : null);
		String reason = null;
		if (tcpUserTimeoutRequested && !tcpUserTimeoutActive) {
			reason = "TCP_USER_TIMEOUT needs a native transport (epoll or io_uring) and Lettuce uses "
					+ transport.displayName();
		}
		if (requestedKeepAlive.isEnabled() && !keepAlive.extended()) {
			reason = ((reason != null) ? reason + "; " : "")
					+ "keep-alive idle, interval and count cannot be set on this platform, so the operating "
					+ "system's timings apply";
		}
		return new EffectiveSocketSettings(transport, keepAlive, tcpUserTimeout, reason);
	}

	private static KeepAlive keepAlive(LettuceTuningProperties.KeepAlive requested, boolean extendedSupported) {
		if (!requested.isEnabled()) {
			return new KeepAlive(false, false, null, null, null);
		}
		if (!extendedSupported) {
			return new KeepAlive(true, false, null, null, null);
		}
		return new KeepAlive(true, true, requested.getIdle(), requested.getInterval(), requested.getCount());
	}

	/**
	 * Return the configured TCP_USER_TIMEOUT, or the keep-alive detection time (idle +
	 * interval x count) so that neither mechanism gives up before the other.
	 * @param socket the requested settings
	 * @return the timeout
	 */
	static Duration tcpUserTimeout(LettuceTuningProperties.Socket socket) {
		@Nullable Duration configured = socket.getTcpUserTimeout().getDuration();
		if (configured != null) {
			return configured;
		}
		LettuceTuningProperties.KeepAlive keepAlive = socket.getKeepAlive();
		return keepAlive.getIdle().plus(keepAlive.getInterval().multipliedBy(keepAlive.getCount()));
	}

}
