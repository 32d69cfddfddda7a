package io.github.lettucetuning.sample.demo;

import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.sample.catalog.CatalogService;
import io.github.lettucetuning.sample.counter.VisitCounter;
import io.github.lettucetuning.sample.jobs.JobQueue;
import io.github.lettucetuning.sample.leaderboard.Leaderboard;
import io.github.lettucetuning.sample.orders.OrderService;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Switches the demo load on with {@code demo.enabled=true}.
 *
 * @author lettuce-tuning
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("demo.enabled")
@EnableConfigurationProperties(DemoProperties.class)
class DemoConfiguration {

	@Bean
	DemoLoad demoLoad(CatalogService catalog, VisitCounter visits, Leaderboard leaderboard, OrderService orders,
			JobQueue jobs, DemoProperties properties, RedisConnectionFactory connectionFactory, Environment environment,
			ConfigurableApplicationContext context, ObjectProvider<LettuceEndpoint> endpoint) {
		ShopWorkload workload = new ShopWorkload(catalog, visits, leaderboard, orders, jobs);
		ServerConnections connections = new ServerConnections(connectionFactory,
				environment.getProperty("spring.application.name", "lettuce-tuning-sample"));
		return new DemoLoad(workload, properties, connections, context,
				() -> TuningSummary.of(endpoint.getIfAvailable()));
	}

}
