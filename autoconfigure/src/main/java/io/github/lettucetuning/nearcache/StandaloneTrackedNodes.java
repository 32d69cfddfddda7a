package io.github.lettucetuning.nearcache;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * One connection to a standalone Redis, or to the master that Sentinel names: Lettuce's
 * reconnect follows a failover there.
 */
final class StandaloneTrackedNodes implements TrackedNodes {

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private StandaloneTrackedNodes(StatefulRedisConnection<byte[], byte[]> connection) {
		this.connection = connection;
	}

	static StandaloneTrackedNodes open(RedisClient client, Events events) {
		StatefulRedisConnection<byte[], byte[]> connection;
		try {
			connection = client.connect(ByteArrayCodec.INSTANCE);
		}
		catch (IllegalStateException ex) {
			// Spring Data's static master/replica client has no endpoint of its own
			throw new UnsupportedTrackingException(
					"its client has no endpoint of its own (a static master/replica " + "setup): " + ex.getMessage());
		}
		try {
			TrackedNodes.requireResp3(connection.sync().clientInfo());
			connection.addListener(events::pushed);
			return new StandaloneTrackedNodes(connection);
		}
		catch (RuntimeException ex) {
			connection.close();
			throw ex;
		}
	}

	@Override
	public CompletableFuture<List<StatefulRedisConnection<byte[], byte[]>>> masters() {
		return CompletableFuture.completedFuture(List.of(this.connection));
	}

	@Override
	public StatefulRedisConnection<byte[], byte[]> writer() {
		return this.connection;
	}

	@Override
	public boolean carries(RedisChannelHandler<?, ?> handler) {
		return handler == this.connection;
	}

	@Override
	public void close() {
		this.connection.close();
	}

	@Override
	public void closeAsync() {
		this.connection.closeAsync();
	}

}
