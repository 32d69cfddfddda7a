package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.Delegating;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.DefaultEndpoint;
import org.jspecify.annotations.Nullable;

/**
 * Finds the Netty event loop that serves a standalone connection, as the thread it runs
 * on. Lettuce does not expose a connection's channel, but it completes every command on
 * the channel's event loop, and a callback attached to a command before it is sent runs
 * where the command completes: a {@code PING} whose completion notes its thread names the
 * loop. Cluster and master/replica connections spread over several channels and have no
 * one loop.
 */
// Works around Lettuce not exposing a connection's channel:
// docs/upstream.md#a-connections-event-loop-found-with-a-ping
final class ConnectionEventLoops {

	// A PING answers within a round trip; a server that takes longer is in trouble, and
	// the loop stays unknown rather than holding up the caller that opens a connection.
	private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

	private ConnectionEventLoops() {
	}

	/**
	 * Return the thread of the event loop serving a connection, at the cost of one
	 * {@code PING}.
	 * @param connection the connection
	 * @return the event loop's thread, or {@code null} if unknown
	 */
	static @Nullable Thread of(StatefulConnection<?, ?> connection) {
		if (!(connection instanceof StatefulRedisConnection<?, ?> redis) || !hasOneChannel(connection)) {
			return null;
		}
		AsyncCommand<byte[], byte[], String> ping = new AsyncCommand<>(
				new Command<>(CommandType.PING, new StatusOutput<>(ByteArrayCodec.INSTANCE)));
		CompletableFuture<Thread> completedOn = ping.thenApply((pong) -> Thread.currentThread());
		try {
			bytes(redis).dispatch(ping);
			return completedOn.get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (ExecutionException | TimeoutException | RuntimeException ex) {
			return null;
		}
	}

	// A standalone connection writes through one endpoint, which holds one channel at a
	// time.
	@SuppressWarnings("unchecked")
	private static boolean hasOneChannel(StatefulConnection<?, ?> connection) {
		if (!(connection instanceof RedisChannelHandler<?, ?> handler)) {
			return false;
		}
		RedisChannelWriter writer = handler.getChannelWriter();
		if (writer instanceof Delegating<?> delegating) {
			writer = ((Delegating<RedisChannelWriter>) delegating).unwrap();
		}
		return writer instanceof DefaultEndpoint;
	}

	// PING carries no keys or values and its status reply is decoded without the codec,
	// so the connection's own codec does not matter.
	@SuppressWarnings("unchecked")
	private static StatefulRedisConnection<byte[], byte[]> bytes(StatefulRedisConnection<?, ?> connection) {
		return (StatefulRedisConnection<byte[], byte[]>) connection;
	}

}
