package io.github.lettucetuning.autoconfigure.resources;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.SharedConnectionCount;
import io.github.lettucetuning.connection.ConnectionMode;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;

/**
 * Sizes Lettuce's I/O and computation thread pools. In multi mode the I/O pool gets at
 * least one thread per shared connection, since each connection is served by one event
 * loop and fewer loops than connections would serialise their I/O.
 */
final class ThreadsClientResourcesBuilderCustomizer implements ClientResourcesBuilderCustomizer {

	private static final Log logger = LogFactory.getLog(ThreadsClientResourcesBuilderCustomizer.class);

	private final LettuceTuningProperties properties;

	ThreadsClientResourcesBuilderCustomizer(LettuceTuningProperties properties) {
		this.properties = properties;
	}

	@Override
	public void customize(ClientResources.Builder builder) {
		Integer computationThreads = this.properties.getConnection().getComputationThreads();
		if (computationThreads != null) {
			builder.computationThreadPoolSize(computationThreads);
		}
		builder.ioThreadPoolSize(ioThreads());
	}

	int ioThreads() {
		Integer configured = this.properties.getConnection().getIoThreads();
		int ioThreads = (configured != null) ? configured : DefaultClientResources.DEFAULT_IO_THREADS;
		if (this.properties.getConnection().getMode() != ConnectionMode.MULTI) {
			return ioThreads;
		}
		int connections = SharedConnectionCount.of(this.properties);
		if (configured != null && configured < connections) {
			logger.warn("lettuce.tuning.connection.io-threads=" + configured + " is below the " + connections
					+ " shared connections of the multi mode; using " + connections + " I/O threads");
		}
		return Math.max(ioThreads, connections);
	}

}
