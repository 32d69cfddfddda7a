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
 * Applies {@code lettuce.tuning.cluster.*} to cluster client options; leaves other
 * client options alone. Reads the topology refresh options set before it (Spring Boot's
 * {@code spring.data.redis.lettuce.cluster.refresh.*}) and keeps Boot's period and
 * dynamic refresh sources unless lettuce-tuning's own properties set them.
 *
 * @author lettuce-tuning
 */
final class ClusterOptionsBuilderCustomizer implements LettuceClientOptionsBuilderCustomizer {

	/**
	 * The refresh period used when neither lettuce-tuning nor Spring Boot sets one.
	 */
	static final Duration DEFAULT_REFRESH_PERIOD = Duration.ofSeconds(30);

	private final LettuceTuningProperties.Cluster properties;

	ClusterOptionsBuilderCustomizer(LettuceTuningProperties.Cluster properties) {
		this.properties = properties;
	}

	@Override
	public void customize(ClientOptions.Builder builder) {
		if (!(builder instanceof ClusterClientOptions.Builder cluster)) {
			return;
		}
		ClusterTopologyRefreshOptions current = cluster.build().getTopologyRefreshOptions();
		LettuceTuningProperties.NodeFilter filter = this.properties.getNodeFilter();
		cluster.topologyRefreshOptions(refreshOptions(current))
			.maxRedirects(this.properties.getMaxRedirects())
			.validateClusterNodeMembership(this.properties.isValidateMembership())
			.nodeFilter(new ClusterNodeFilter(filter.isExcludeFailed(), filter.isExcludePossiblyFailed(),
					filter.isExcludeWithoutAddress()));
	}

	private ClusterTopologyRefreshOptions refreshOptions(ClusterTopologyRefreshOptions current) {
		LettuceTuningProperties.Refresh refresh = this.properties.getRefresh();
		Boolean dynamicRefreshSources = refresh.getDynamicRefreshSources();
		ClusterTopologyRefreshOptions.Builder builder = ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(refresh.isPeriodic())
			.refreshPeriod(period(refresh, current))
			.dynamicRefreshSources(
					(dynamicRefreshSources != null) ? dynamicRefreshSources : current.useDynamicRefreshSources())
			.closeStaleConnections(refresh.isCloseStaleConnections())
			.adaptiveRefreshTriggersTimeout(refresh.getAdaptiveTriggersTimeout())
			.refreshTriggersReconnectAttempts(refresh.getReconnectAttempts());
		Set<RefreshTrigger> disabled = EnumSet.allOf(RefreshTrigger.class);
		disabled.removeAll(refresh.getAdaptiveTriggers());
		if (!disabled.isEmpty()) {
			builder.disableAdaptiveRefreshTrigger(disabled.toArray(RefreshTrigger[]::new));
		}
		return builder.build();
	}

	// Ours where set, then a period set before us (Spring Boot's property), then our default.
	private static Duration period(LettuceTuningProperties.Refresh refresh, ClusterTopologyRefreshOptions current) {
		if (refresh.getPeriod() != null) {
			return refresh.getPeriod();
		}
		return current.isPeriodicRefreshEnabled() ? current.getRefreshPeriod() : DEFAULT_REFRESH_PERIOD;
	}

}
