package io.github.lettucetuning.state;

import io.github.lettucetuning.connection.ConnectionMode;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.lettuce.core.api.StatefulConnection;

/**
 * The shared native connections of a {@link LettuceTuningConnectionFactory} at one
 * moment: how many the mode provides for, and how many of them are connected,
 * disconnected (Lettuce is reconnecting them) or not opened yet. In pooled mode no
 * connection is shared, so every count is zero; the dedicated pool carries the traffic
 * (see {@link PoolSnapshot}).
 *
 * @param mode the connection mode
 * @param size the number of shared connections the mode provides for
 * @param open the shared connections that are connected
 * @param disconnected the shared connections opened but currently disconnected
 * @param unopened the shared connections not opened yet
 * @since 0.1.0
 */
public record ConnectionSnapshot(ConnectionMode mode, int size, int open, int disconnected, int unopened) {

	/**
	 * Take a snapshot of the factory's shared connections of the imperative API.
	 * @param factory the connection factory
	 * @return the snapshot
	 */
	public static ConnectionSnapshot of(LettuceTuningConnectionFactory factory) {
		if (!factory.getShareNativeConnection()) {
			return new ConnectionSnapshot(factory.getMode(), 0, 0, 0, 0);
		}
		int size = factory.getSharedConnectionCount();
		int open = 0;
		int disconnected = 0;
		for (StatefulConnection<?, ?> connection : factory.getSharedConnections()) {
			if (connection.isOpen()) {
				open++;
			}
			else {
				disconnected++;
			}
		}
		return new ConnectionSnapshot(factory.getMode(), size, open, disconnected,
				Math.max(0, size - open - disconnected));
	}

}
