package io.github.lettucetuning.autoconfigure.socket;

import java.time.Duration;

import io.github.lettucetuning.socket.EffectiveSocketSettings;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SocketOptions.TcpUserTimeoutOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;

/**
 * Sets TCP_USER_TIMEOUT on the client options and leaves the rest of the socket options
 * as they were set before: the connect timeout
 * ({@code spring.data.redis.connect-timeout}), TCP_NODELAY and Lettuce's keep-alive, or
 * the keep-alive of a customizer ordered before this one. Unless its duration is
 * configured, TCP_USER_TIMEOUT follows that keep-alive (idle + interval x count), so that
 * neither gives up on a dead peer before the other.
 * <p>
 * When nobody set a connect timeout (neither the property nor an earlier customizer), it
 * is {@value #DEFAULT_CONNECT_TIMEOUT_SECONDS} s instead of Lettuce's 10 s: a server that
 * drops packets holds every new connection for the whole connect timeout, and a caller
 * that needs one (a transaction, a blocking command, a borrow in pooled mode) waits it
 * out, cut only at the command timeout. The fault campaign found it
 * (docs/fault-campaign.md).
 */
// Works around SocketOptions.mutate() dropping TCP_USER_TIMEOUT:
// docs/upstream.md#socket-options-and-mutate
final class SocketOptionsBuilderCustomizer implements LettuceClientOptionsBuilderCustomizer {

	private final EffectiveSocketSettings settings;

	static final int DEFAULT_CONNECT_TIMEOUT_SECONDS = 2;

	private final @Nullable Duration configuredTcpUserTimeout;

	private final boolean connectTimeoutConfigured;

	SocketOptionsBuilderCustomizer(EffectiveSocketSettings settings, @Nullable Duration configuredTcpUserTimeout,
			boolean connectTimeoutConfigured) {
		this.settings = settings;
		this.configuredTcpUserTimeout = configuredTcpUserTimeout;
		this.connectTimeoutConfigured = connectTimeoutConfigured;
	}

	@Override
	public void customize(ClientOptions.Builder builder) {
		SocketOptions current = builder.build().getSocketOptions();
		// mutate() carries everything but TCP_USER_TIMEOUT, which is set here in any case
		SocketOptions.Builder socket = current.mutate();
		if (!this.connectTimeoutConfigured
				&& current.getConnectTimeout().equals(SocketOptions.DEFAULT_CONNECT_TIMEOUT_DURATION)) {
			socket.connectTimeout(Duration.ofSeconds(DEFAULT_CONNECT_TIMEOUT_SECONDS));
		}
		if (this.settings.tcpUserTimeout().active()) {
			socket.tcpUserTimeout(TcpUserTimeoutOptions.builder()
				.enable()
				.tcpUserTimeout(
						SocketSettingsResolver.tcpUserTimeout(this.configuredTcpUserTimeout, current.getKeepAlive()))
				.build());
		}
		else {
			// Lettuce fails the connect when it is enabled without a native transport
			socket.tcpUserTimeout(TcpUserTimeoutOptions.builder().disable().build());
		}
		builder.socketOptions(socket.build());
	}

}
