package io.github.lettucetuning.connection;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.lettuce.core.Delegating;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.protocol.CommandHandler;
import io.lettuce.core.protocol.Endpoint;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import org.jspecify.annotations.Nullable;

/**
 * Knows which event loop serves each standalone connection now, so that a synchronous
 * call made on an event loop can be given a shared connection that another loop serves.
 * Lettuce keeps a connection's channel to itself, but its command handler names the
 * connection's endpoint: each channel is noted under its endpoint when Lettuce sets it
 * up, a reconnect's channel replaces it, and a closed one leaves. Nothing happens per
 * command. Register it with {@code ClientResources.Builder#nettyCustomizer}.
 *
 * @since 0.2.0
 */
public final class ServingLoops implements NettyCustomizer {

	private final Map<Endpoint, Channel> channels = new ConcurrentHashMap<>();

	@Override
	public void afterChannelInitialized(Channel channel) {
		CommandHandler handler = channel.pipeline().get(CommandHandler.class);
		if (handler == null) {
			return;
		}
		Endpoint endpoint = handler.getEndpoint();
		this.channels.put(endpoint, channel);
		channel.closeFuture().addListener((closed) -> this.channels.remove(endpoint, channel));
	}

	/**
	 * Return whether the current thread is the event loop that serves a connection.
	 * @param connection the connection
	 * @return whether its commands go out through the current thread; {@code false} when
	 * the connection spreads over several channels or is not known
	 */
	public boolean servedByCurrentThread(StatefulConnection<?, ?> connection) {
		Channel channel = channelOf(connection);
		return channel != null && channel.eventLoop().inEventLoop();
	}

	/**
	 * Return how many channels are known, for tests.
	 * @return the number of channels
	 */
	int size() {
		return this.channels.size();
	}

	@SuppressWarnings("unchecked")
	private @Nullable Channel channelOf(StatefulConnection<?, ?> connection) {
		if (!(connection instanceof RedisChannelHandler<?, ?> handler)) {
			return null;
		}
		RedisChannelWriter writer = handler.getChannelWriter();
		if (writer instanceof Delegating<?> delegating) {
			writer = ((Delegating<RedisChannelWriter>) delegating).unwrap();
		}
		return (writer instanceof Endpoint endpoint) ? this.channels.get(endpoint) : null;
	}

}
