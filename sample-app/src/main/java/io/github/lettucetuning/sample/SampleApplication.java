package io.github.lettucetuning.sample;

import java.util.Arrays;

import io.github.lettucetuning.sample.demo.ComparisonDemo;
import io.github.lettucetuning.sample.localredis.LocalRedisFallback;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;

/**
 * A small shop on Redis: a cached catalog, a visit counter, a leaderboard, orders placed
 * in a transaction and a job queue drained with a blocking pop.
 */
@SpringBootApplication
@EnableCaching
public class SampleApplication {

	/**
	 * Run the shop, or with {@code --demo} the side-by-side demo.
	 * @param args the arguments
	 */
	public static void main(String[] args) throws Exception {
		if (Arrays.asList(args).contains("--demo")) {
			System.exit(ComparisonDemo.run(SampleApplication.class, args));
		}
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.addListeners(new LocalRedisFallback());
		application.run(args);
	}

}
