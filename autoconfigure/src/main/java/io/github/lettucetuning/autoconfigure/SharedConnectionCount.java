package io.github.lettucetuning.autoconfigure;

import io.github.lettucetuning.connection.ConnectionMode;

/**
 * The number of shared connections the configured mode opens.
 *
 * @since 0.1.0
 */
public final class SharedConnectionCount {

	private SharedConnectionCount() {
	}

	/**
	 * Return the number of shared connections for the given properties: the multi set's
	 * size (by default the number of available processors) in multi mode, 1 otherwise.
	 * @param properties the properties
	 * @return the number of shared connections
	 */
	public static int of(LettuceTuningProperties properties) {
		if (properties.getConnection().getMode() != ConnectionMode.MULTI) {
			return 1;
		}
		Integer size = properties.getConnection().getMulti().getSize();
		return (size != null) ? size : Runtime.getRuntime().availableProcessors();
	}

}
