package io.github.lettucetuning.autoconfigure.socket;

import io.github.lettucetuning.socket.EffectiveSocketSettings;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SocketOptions.KeepAliveOptions;
import io.lettuce.core.SocketOptions.TcpUserTimeoutOptions;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;

/**
 * Applies the {@link EffectiveSocketSettings} to the client options. Builds the socket
 * options afresh rather than with {@code SocketOptions.mutate()}, which drops
 * TCP_USER_TIMEOUT, and carries over what was set before: the connect timeout
 * ({@code spring.data.redis.connect-timeout}) and TCP_NODELAY.
 *
 * @author lettuce-tuning
 */
final class SocketOptionsBuilderCustomizer implements LettuceClientOptionsBuilderCustomizer {

	private final EffectiveSocketSettings settings;

	SocketOptionsBuilderCustomizer(EffectiveSocketSettings settings) {
		this.settings = settings;
	}

	@Override
	public void customize(ClientOptions.Builder builder) {
		SocketOptions current = builder.build().getSocketOptions();
		SocketOptions.Builder socket = SocketOptions.builder()
			.connectTimeout(current.getConnectTimeout())
			.tcpNoDelay(current.isTcpNoDelay());
		applyKeepAlive(socket, this.settings.keepAlive());
		applyTcpUserTimeout(socket, this.settings.tcpUserTimeout());
		builder.socketOptions(socket.build());
	}

	private static void applyKeepAlive(SocketOptions.Builder socket, EffectiveSocketSettings.KeepAlive keepAlive) {
		if (keepAlive.extended() && keepAlive.idle() != null && keepAlive.interval() != null
				&& keepAlive.count() != null) {
			socket.keepAlive(KeepAliveOptions.builder()
				.enable()
				.idle(keepAlive.idle())
				.interval(keepAlive.interval())
				.count(keepAlive.count())
				.build());
		}
		else {
			// Plain SO_KEEPALIVE: extended options would fail at connect where unsupported
			socket.keepAlive(keepAlive.active());
		}
	}

	private static void applyTcpUserTimeout(SocketOptions.Builder socket,
			EffectiveSocketSettings.TcpUserTimeout tcpUserTimeout) {
		if (tcpUserTimeout.active() && tcpUserTimeout.timeout() != null) {
			socket.tcpUserTimeout(
					TcpUserTimeoutOptions.builder().enable().tcpUserTimeout(tcpUserTimeout.timeout()).build());
		}
		else {
			// Lettuce fails the connect when it is enabled without a native transport
			socket.tcpUserTimeout(TcpUserTimeoutOptions.builder().disable().build());
		}
	}

}
