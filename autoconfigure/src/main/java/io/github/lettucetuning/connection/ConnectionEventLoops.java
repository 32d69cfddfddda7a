package io.github.lettucetuning.connection;

import java.lang.reflect.Field;

import io.lettuce.core.Delegating;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Finds the Netty event loop that serves a standalone connection. Lettuce does not expose
 * a connection's channel, so it is read from the endpoint's {@code channel} field; where
 * that is not possible (another writer, a cluster or master/replica connection, a module
 * layer that denies access) the event loop is unknown.
 */
final class ConnectionEventLoops {

	private static final Log logger = LogFactory.getLog(ConnectionEventLoops.class);

	private static final @Nullable Field CHANNEL = channelField();

	private ConnectionEventLoops() {
	}

	private static @Nullable Field channelField() {
		try {
			Field field = DefaultEndpoint.class.getDeclaredField("channel");
			field.setAccessible(true);
			return field;
		}
		catch (ReflectiveOperationException | RuntimeException ex) {
			logger.debug("Cannot read the channel of a Lettuce endpoint; shared connections may share event loops", ex);
			return null;
		}
	}

	/**
	 * Return the event loop serving a connection.
	 * @param connection the connection
	 * @return its event loop, or {@code null} if unknown
	 */
	@SuppressWarnings("unchecked")
	static @Nullable EventLoop of(StatefulConnection<?, ?> connection) {
		if (CHANNEL == null || !(connection instanceof StatefulRedisConnection<?, ?>)
				|| !(connection instanceof RedisChannelHandler<?, ?> handler)) {
			return null;
		}
		RedisChannelWriter writer = handler.getChannelWriter();
		if (writer instanceof Delegating<?> delegating) {
			writer = ((Delegating<RedisChannelWriter>) delegating).unwrap();
		}
		if (!(writer instanceof DefaultEndpoint endpoint)) {
			return null;
		}
		try {
			Channel channel = (Channel) CHANNEL.get(endpoint);
			return (channel != null) ? channel.eventLoop() : null;
		}
		catch (IllegalAccessException ex) {
			return null;
		}
	}

}
