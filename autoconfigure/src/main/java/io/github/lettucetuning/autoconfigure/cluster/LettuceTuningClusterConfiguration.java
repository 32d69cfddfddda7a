package io.github.lettucetuning.autoconfigure.cluster;

import io.github.lettucetuning.autoconfigure.CustomizerOrder;
import io.github.lettucetuning.autoconfigure.ExplicitProperties;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * Tunes Redis Cluster client options: periodic topology refresh by default and a node
 * filter that leaves failed nodes out.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class LettuceTuningClusterConfiguration {

	private static final String REFRESH_PERIOD = "spring.data.redis.lettuce.cluster.refresh.period";

	@Bean
	@Order(CustomizerOrder.LETTUCE_TUNING)
	ClusterOptionsBuilderCustomizer lettuceTuningClusterOptionsCustomizer(LettuceTuningProperties properties,
			Environment environment) {
		return new ClusterOptionsBuilderCustomizer(properties.getCluster().getNodeFilter(),
				ExplicitProperties.of(environment).isSet(REFRESH_PERIOD));
	}

}
