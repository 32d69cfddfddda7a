package io.github.lettucetuning.autoconfigure.cluster;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.cluster.ClusterNodeFilter;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;

/**
 * Applies lettuce-tuning's cluster defaults to cluster client options; leaves other
 * client options alone. Reads the topology refresh options set before it (Spring Boot's
 * {@code spring.data.redis.lettuce.cluster.refresh.*}) and keeps them, except that
 * periodic refresh is switched on every 30 s when the application set no
 * {@code spring.data.redis.lettuce.cluster.refresh.period}. Adds the node filter.
 */
final class ClusterOptionsBuilderCustomizer implements LettuceClientOptionsBuilderCustomizer {

	/**
	 * The refresh period used when the application sets none.
	 */
	static final Duration DEFAULT_REFRESH_PERIOD = Duration.ofSeconds(30);

	private final LettuceTuningProperties.NodeFilter nodeFilter;

	private final boolean refreshPeriodSet;

	/**
	 * Create a customizer.
	 * @param nodeFilter the node filter properties
	 * @param refreshPeriodSet whether the application set
	 * {@code spring.data.redis.lettuce.cluster.refresh.period}
	 */
	ClusterOptionsBuilderCustomizer(LettuceTuningProperties.NodeFilter nodeFilter, boolean refreshPeriodSet) {
		this.nodeFilter = nodeFilter;
		this.refreshPeriodSet = refreshPeriodSet;
	}

	@Override
	public void customize(ClientOptions.Builder builder) {
		if (!(builder instanceof ClusterClientOptions.Builder cluster)) {
			return;
		}
		if (!this.refreshPeriodSet) {
			cluster.topologyRefreshOptions(withDefaultPeriod(cluster.build().getTopologyRefreshOptions()));
		}
		cluster.nodeFilter(new ClusterNodeFilter(this.nodeFilter.isExcludeFailed(),
				this.nodeFilter.isExcludePossiblyFailed(), this.nodeFilter.isExcludeWithoutAddress()));
	}

	// What was set before us, copied by Lettuce's own copy constructor so that every
	// field survives, including any a later Lettuce adds; only periodic refresh is
	// switched on. Lettuce has no mutate() or builder seeded from existing refresh
	// options (7.5 to 7.7), hence the subclass: docs/upstream.md#cluster-refresh-options
	private static ClusterTopologyRefreshOptions withDefaultPeriod(ClusterTopologyRefreshOptions current) {
		return new PeriodicRefreshOptions(current, DEFAULT_REFRESH_PERIOD);
	}

	/**
	 * Refresh options equal to others except that periodic refresh is on. Lettuce reads
	 * them through their getters; {@link ClusterTopologyRefreshOptions#copyOf} reads the
	 * fields and so would copy the options this was made from.
	 */
	static final class PeriodicRefreshOptions extends ClusterTopologyRefreshOptions {

		private final Duration refreshPeriod;

		PeriodicRefreshOptions(ClusterTopologyRefreshOptions original, Duration refreshPeriod) {
			super(original);
			this.refreshPeriod = refreshPeriod;
		}

		@Override
		public boolean isPeriodicRefreshEnabled() {
			return true;
		}

		@Override
		public Duration getRefreshPeriod() {
			return this.refreshPeriod;
		}

	}

}
