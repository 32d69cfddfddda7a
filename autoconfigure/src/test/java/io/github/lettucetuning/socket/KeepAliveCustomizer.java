package io.github.lettucetuning.socket;

import java.time.Duration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions.KeepAliveOptions;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.core.Ordered;

/**
 * A keep-alive of the application's own, the documented way: a customizer ordered before
 * lettuce-tuning's, so that the TCP_USER_TIMEOUT lettuce-tuning derives follows it.
 *
 * @param idle idle time before the first probe
 * @param interval time between probes
 * @param count unanswered probes before the connection is dropped
 */
public record KeepAliveCustomizer(Duration idle, Duration interval,
		int count) implements LettuceClientOptionsBuilderCustomizer, Ordered {

	@Override
	public void customize(ClientOptions.Builder builder) {
		KeepAliveOptions keepAlive = KeepAliveOptions.builder()
			.enable()
			.idle(this.idle)
			.interval(this.interval)
			.count(this.count)
			.build();
		builder.socketOptions(builder.build().getSocketOptions().mutate().keepAlive(keepAlive).build());
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

}
