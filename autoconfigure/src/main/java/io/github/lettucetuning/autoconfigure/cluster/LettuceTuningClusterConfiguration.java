package io.github.lettucetuning.autoconfigure.cluster;

import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * Tunes Redis Cluster client options: periodic and adaptive topology refresh, redirects,
 * membership validation and a node filter that leaves failed nodes out.
 *
 * @author lettuce-tuning
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class LettuceTuningClusterConfiguration {

	/**
	 * The order of lettuce-tuning's cluster options customizer: early, so that customizers
	 * without an order, the usual case for the user's, run after it.
	 */
	public static final int CUSTOMIZER_ORDER = 0;

	@Bean
	@Order(CUSTOMIZER_ORDER)
	ClusterOptionsBuilderCustomizer lettuceTuningClusterOptionsCustomizer(LettuceTuningProperties properties) {
		return new ClusterOptionsBuilderCustomizer(properties.getCluster());
	}

}
