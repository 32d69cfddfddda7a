package io.github.lettucetuning.sample;

import io.github.lettucetuning.sample.localredis.LocalRedisFallback;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A small shop on Redis: a cached catalog, a visit counter, a leaderboard, orders
 * placed in a transaction and a job queue drained with a blocking pop.
 *
 * @author lettuce-tuning
 */
@SpringBootApplication
@EnableCaching
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.addListeners(new LocalRedisFallback());
		ConfigurableApplicationContext context = application.run(args);
		if (context.getEnvironment().getProperty("demo.enabled", Boolean.class, false)) {
			System.exit(SpringApplication.exit(context));
		}
	}

}
