package io.github.lettucetuning.autoconfigure.socket;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.socket.EffectiveSocketSettings;
import io.github.lettucetuning.socket.EffectiveSocketSettings.KeepAlive;
import io.github.lettucetuning.socket.EffectiveSocketSettings.TcpUserTimeout;
import io.github.lettucetuning.socket.NettyTransport;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SocketOptions.KeepAliveOptions;
import org.jspecify.annotations.Nullable;

/**
 * Decides which of the requested socket settings can take effect on this platform.
 */
final class SocketSettingsResolver {

	private static final KeepAliveOptions LETTUCE_KEEP_ALIVE = SocketOptions.create().getKeepAlive();

	private SocketSettingsResolver() {
	}

	/**
	 * Resolve the settings in effect.
	 * @param socket the requested settings
	 * @param transport the transport Lettuce uses
	 * @param extendedKeepAliveSupported whether keep-alive idle, interval and count can
	 * be set (Lettuce's {@code ExtendedKeepAliveSupport.isSupported()})
	 * @return the settings in effect
	 */
	static EffectiveSocketSettings resolve(LettuceTuningProperties.Socket socket, NettyTransport transport,
			boolean extendedKeepAliveSupported) {
		KeepAlive keepAlive = lettucesKeepAlive(extendedKeepAliveSupported);
		boolean tcpUserTimeoutRequested = socket.getTcpUserTimeout().isEnabled();
		boolean tcpUserTimeoutActive = tcpUserTimeoutRequested && transport.supportsTcpUserTimeout();
		TcpUserTimeout tcpUserTimeout = new TcpUserTimeout(tcpUserTimeoutActive, tcpUserTimeoutActive
				? tcpUserTimeout(socket.getTcpUserTimeout().getDuration(), LETTUCE_KEEP_ALIVE) : null);
		String reason = null;
		if (tcpUserTimeoutRequested && !tcpUserTimeoutActive) {
			reason = "TCP_USER_TIMEOUT needs a native transport (epoll or io_uring) and Lettuce uses "
					+ transport.displayName();
		}
		if (!keepAlive.extended()) {
			reason = ((reason != null) ? reason + "; " : "")
					+ "keep-alive idle, interval and count cannot be set on this platform, so the operating "
					+ "system's timings apply";
		}
		return new EffectiveSocketSettings(transport, keepAlive, tcpUserTimeout, reason);
	}

	// Lettuce's own keep-alive, which the starter leaves as it is.
	private static KeepAlive lettucesKeepAlive(boolean extendedSupported) {
		if (!LETTUCE_KEEP_ALIVE.isEnabled()) {
			return new KeepAlive(false, false, null, null, null);
		}
		if (!extendedSupported) {
			return new KeepAlive(true, false, null, null, null);
		}
		return new KeepAlive(true, true, LETTUCE_KEEP_ALIVE.getIdle(), LETTUCE_KEEP_ALIVE.getInterval(),
				LETTUCE_KEEP_ALIVE.getCount());
	}

	/**
	 * Return the configured TCP_USER_TIMEOUT, or the keep-alive's detection time (idle +
	 * interval x count) so that neither mechanism gives up before the other.
	 * @param configured the configured timeout, or {@code null}
	 * @param keepAlive the keep-alive the connections use
	 * @return the timeout
	 */
	static Duration tcpUserTimeout(@Nullable Duration configured, KeepAliveOptions keepAlive) {
		if (configured != null) {
			return configured;
		}
		return keepAlive.getIdle().plus(keepAlive.getInterval().multipliedBy(keepAlive.getCount()));
	}

}
