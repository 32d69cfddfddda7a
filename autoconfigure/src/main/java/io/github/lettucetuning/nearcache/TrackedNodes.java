package io.github.lettucetuning.nearcache;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.push.PushMessage;
import io.lettuce.core.cluster.RedisClusterClient;
import org.jspecify.annotations.Nullable;

/**
 * The connections that carry a near cache's invalidations: one to a standalone Redis (or
 * the master Sentinel names), or one to each master of a cluster. Each is a RESP3
 * connection of its own, on which {@link InvalidationTracking} turns tracking on.
 */
interface TrackedNodes extends AutoCloseable {

	/**
	 * Open the connections for the given client, blocking: the caller is the first read
	 * of a near cache, outside any lock.
	 * @param client the application's client
	 * @param events told of invalidations and topology changes
	 * @return the opened nodes
	 * @throws UnsupportedTrackingException if the connections cannot carry invalidations
	 */
	static TrackedNodes open(AbstractRedisClient client, Events events) {
		if (client instanceof RedisClusterClient cluster) {
			return ClusterTrackedNodes.open(cluster, events);
		}
		if (client instanceof RedisClient standalone) {
			return StandaloneTrackedNodes.open(standalone, events);
		}
		throw new UnsupportedTrackingException("its client is a " + client.getClass().getName());
	}

	/**
	 * The connections to track on: one per master that serves slots, in a cluster.
	 * Connects to masters the near cache had no connection to yet.
	 * @return the connections
	 */
	CompletableFuture<List<StatefulRedisConnection<byte[], byte[]>>> masters();

	/**
	 * The connection for the near cache's own writes: the tracking connection, when there
	 * is one.
	 * @return the connection, or null in a cluster, whose writes go through the
	 * application's connections
	 */
	@Nullable StatefulRedisConnection<byte[], byte[]> writer();

	/**
	 * Whether a connection event is about one of the connections that carry
	 * invalidations.
	 * @param handler the connection of the event
	 * @return whether it is one of them
	 */
	boolean carries(RedisChannelHandler<?, ?> handler);

	@Override
	void close();

	/**
	 * Close without waiting, as an event loop may.
	 */
	void closeAsync();

	/**
	 * What the connections tell.
	 */
	interface Events {

		/**
		 * A push message arrived on one of the connections.
		 * @param message the message
		 */
		void pushed(PushMessage message);

		/**
		 * The masters of the cluster changed, or a node that is not tracked served a
		 * command: values read until now may miss invalidations.
		 */
		void mastersChanged();

	}

	/**
	 * Whether a connection's {@code CLIENT INFO} says it speaks RESP3: Redis delivers
	 * invalidations to a RESP3 connection only.
	 * @param clientInfo the reply
	 * @throws UnsupportedTrackingException if it does not
	 */
	static void requireResp3(String clientInfo) {
		if (!clientInfo.contains(" resp=3")) {
			throw new UnsupportedTrackingException(
					"its connection speaks RESP2, and Redis delivers invalidations to a RESP3 connection only");
		}
	}

	/**
	 * The keys of an {@code invalidate} message, or null for a flush.
	 * @param message the message
	 * @return the keys, or null when every key is to go
	 */
	static List<byte[]> invalidatedKeys(PushMessage message) {
		List<Object> content = message.getContent(TrackedNodes::copy);
		Object keys = (content.size() > 1) ? content.get(1) : null;
		if (!(keys instanceof List<?> list)) {
			return null;
		}
		List<byte[]> invalidated = new ArrayList<>(list.size());
		for (Object key : list) {
			if (key instanceof byte[] bytes) {
				invalidated.add(bytes);
			}
		}
		return invalidated;
	}

	private static Object copy(ByteBuffer buffer) {
		byte[] bytes = new byte[buffer.remaining()];
		buffer.duplicate().get(bytes);
		return bytes;
	}

	/**
	 * The connections cannot carry invalidations, for good.
	 */
	final class UnsupportedTrackingException extends RuntimeException {

		UnsupportedTrackingException(String reason) {
			super(reason);
		}

	}

}
