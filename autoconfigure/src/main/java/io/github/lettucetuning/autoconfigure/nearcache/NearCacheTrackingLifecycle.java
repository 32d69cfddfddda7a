package io.github.lettucetuning.autoconfigure.nearcache;

import org.springframework.context.SmartLifecycle;

/**
 * Closes the near cache's tracking connections when the context stops, before the
 * connection factory stops (phase 0) and shuts its client down with every connection:
 * closed after that, each would be closed twice, and Lettuce logs a warning for each.
 */
class NearCacheTrackingLifecycle implements SmartLifecycle {

	private final NearCacheManagerCustomizer customizer;

	private volatile boolean running;

	NearCacheTrackingLifecycle(NearCacheManagerCustomizer customizer) {
		this.customizer = customizer;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.customizer.destroy();
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
