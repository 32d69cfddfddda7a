package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.lettucetuning.eventloop.BlockingCallGuard;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * Opens connections for the shared set and the dedicated pool so that a caller on one of
 * the client's event loops never waits without a bound. Netty hands a new channel the
 * next loop in turn, which may be the caller's own: that loop then cannot register,
 * connect nor shake hands while its thread waits, and Lettuce's synchronous connect waits
 * without a limit of its own (its connect timeout runs on the same loop). On an event
 * loop the connection is opened asynchronously and awaited for the connect timeout; a
 * connection that comes later is closed. Elsewhere nothing changes.
 */
final class EventLoopSafeConnections implements LettuceConnectionProvider, LettuceConnectionProvider.TargetAware {

	private final LettuceConnectionProvider target;

	private final Duration connectTimeout;

	EventLoopSafeConnections(LettuceConnectionProvider target, Duration connectTimeout) {
		this.target = target;
		this.connectTimeout = connectTimeout;
	}

	@Override
	public <T extends StatefulConnection<?, ?>> T getConnection(Class<T> connectionType) {
		if (!BlockingCallGuard.onEventLoop()) {
			return this.target.getConnection(connectionType);
		}
		return await(this.target.getConnectionAsync(connectionType));
	}

	@Override
	public <T extends StatefulConnection<?, ?>> CompletionStage<T> getConnectionAsync(Class<T> connectionType) {
		return this.target.getConnectionAsync(connectionType);
	}

	@Override
	public <T extends StatefulConnection<?, ?>> T getConnection(Class<T> connectionType, RedisURI redisURI) {
		if (!BlockingCallGuard.onEventLoop()) {
			return targetAware().getConnection(connectionType, redisURI);
		}
		return await(targetAware().getConnectionAsync(connectionType, redisURI));
	}

	@Override
	public <T extends StatefulConnection<?, ?>> CompletionStage<T> getConnectionAsync(Class<T> connectionType,
			RedisURI redisURI) {
		return targetAware().getConnectionAsync(connectionType, redisURI);
	}

	@Override
	public void release(StatefulConnection<?, ?> connection) {
		this.target.release(connection);
	}

	@Override
	public CompletableFuture<Void> releaseAsync(StatefulConnection<?, ?> connection) {
		return this.target.releaseAsync(connection);
	}

	private TargetAware targetAware() {
		if (this.target instanceof TargetAware targetAware) {
			return targetAware;
		}
		throw new UnsupportedOperationException(this.target.getClass().getName() + " cannot connect to a given node");
	}

	private <T extends StatefulConnection<?, ?>> T await(CompletionStage<T> connecting) {
		CompletableFuture<T> connection = connecting.toCompletableFuture();
		try {
			return connection.get(this.connectTimeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (TimeoutException ex) {
			// Closed without waiting: it completes on a loop, where a blocking close
			// would
			// wait for itself.
			connection.thenAccept(StatefulConnection::closeAsync);
			throw new RedisConnectionFailureException(
					"lettuce-tuning could not open a Redis connection for a call " + "made on the event-loop thread "
							+ Thread.currentThread().getName() + " within the connect " + "timeout ("
							+ this.connectTimeout.toMillis() + " ms): a new connection may be given that same "
							+ "loop, which cannot connect it while its thread waits. Move the call off the event loop.",
					ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			connection.thenAccept(StatefulConnection::closeAsync);
			throw new RedisConnectionFailureException("Interrupted while opening a Redis connection", ex);
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			throw (cause instanceof RuntimeException runtime) ? runtime
					: new RedisConnectionFailureException("Unable to connect to Redis", cause);
		}
	}

}
