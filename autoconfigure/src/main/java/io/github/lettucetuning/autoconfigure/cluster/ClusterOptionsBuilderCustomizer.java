package io.github.lettucetuning.autoconfigure.cluster;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.cluster.ClusterNodeFilter;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;

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

	// A copy of what was set before us, with periodic refresh on.
	private static ClusterTopologyRefreshOptions withDefaultPeriod(ClusterTopologyRefreshOptions current) {
		ClusterTopologyRefreshOptions.Builder builder = ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(DEFAULT_REFRESH_PERIOD)
			.dynamicRefreshSources(current.useDynamicRefreshSources())
			.closeStaleConnections(current.isCloseStaleConnections())
			.adaptiveRefreshTriggersTimeout(current.getAdaptiveRefreshTimeout())
			.refreshTriggersReconnectAttempts(current.getRefreshTriggersReconnectAttempts());
		Set<RefreshTrigger> disabled = EnumSet.allOf(RefreshTrigger.class);
		disabled.removeAll(current.getAdaptiveRefreshTriggers());
		if (!disabled.isEmpty()) {
			builder.disableAdaptiveRefreshTrigger(disabled.toArray(RefreshTrigger[]::new));
		}
		return builder.build();
	}

}
