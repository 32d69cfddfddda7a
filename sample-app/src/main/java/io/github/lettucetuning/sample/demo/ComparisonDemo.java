package io.github.lettucetuning.sample.demo;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.sample.catalog.CatalogService;
import io.github.lettucetuning.sample.counter.VisitCounter;
import io.github.lettucetuning.sample.jobs.JobQueue;
import io.github.lettucetuning.sample.leaderboard.Leaderboard;
import io.github.lettucetuning.sample.localredis.LocalRedisFallback;
import io.github.lettucetuning.sample.localredis.LocalRedisServer;
import io.github.lettucetuning.sample.orders.OrderService;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.SimpleCommandLinePropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.web.client.RestClient;

/**
 * The side-by-side demo: runs the same shop workload against Spring Boot's stock Lettuce
 * setup and lettuce-tuning's modes, one application context after the other in one JVM
 * against one Redis, then prints a comparison table, writes a chart and ends with the
 * tuned application's health and {@code /actuator/lettuce} summary.
 */
public final class ComparisonDemo {

	private static final Map<String, String[]> PROFILES = Map.of("stock", new String[] { "demo", "stock" }, "shared",
			new String[] { "demo" }, "multi", new String[] { "demo", "multi" }, "pooled",
			new String[] { "demo", "pooled" });

	private final Class<?> application;

	private final DemoProperties properties;

	private final PrintStream out;

	private final List<String> summary = new ArrayList<>();

	ComparisonDemo(Class<?> application, DemoProperties properties, PrintStream out) {
		this.application = application;
		this.properties = properties;
		this.out = out;
	}

	/**
	 * Run the demo with the application's arguments.
	 * @param application the shop's application class, started once per setup
	 * @param arguments the arguments, {@code --demo.*} ones included
	 * @return the exit code: 0, or 1 when a request failed
	 */
	public static int run(Class<?> application, String[] arguments) throws Exception {
		// The bare --demo flag would bind as an empty "demo" value and hide the demo.*
		// ones.
		String[] args = Arrays.stream(arguments)
			.filter((argument) -> !argument.equals("--demo"))
			.toArray(String[]::new);
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new SimpleCommandLinePropertySource(args));
		DemoProperties properties = Binder.get(environment)
			.bind("demo", DemoProperties.class)
			.orElseGet(DemoProperties::new);
		LocalRedisFallback fallback = new LocalRedisFallback();
		fallback.startIfNeeded(environment);
		try {
			return new ComparisonDemo(application, properties, System.out).compare(withRedis(args, fallback.server()));
		}
		finally {
			fallback.stop();
		}
	}

	private static String[] withRedis(String[] args, @Nullable LocalRedisServer server) {
		if (server == null) {
			return args;
		}
		List<String> all = new ArrayList<>(List.of(args));
		all.add("--spring.data.redis.host=" + server.host());
		all.add("--spring.data.redis.port=" + server.port());
		return all.toArray(String[]::new);
	}

	int compare(String[] args) throws Exception {
		this.out.printf(
				"%nlettuce-tuning demo: the same shop workload, %d threads, %ds warm-up + %ds measured per setup%n",
				this.properties.getThreads(), this.properties.getWarmup().toSeconds(),
				this.properties.getDuration().toSeconds());
		this.out.printf("Setups: %s; each runs in its own application context, one after the other.%n",
				this.properties.getSetups());
		// One pass warms the JIT for every setup first: otherwise each setup would run
		// faster than the one before it only because it ran later.
		this.out.println("Warming up every setup (not measured)...");
		for (String setup : this.properties.getSetups()) {
			round(setup, args, this.properties.getWarmup(), Duration.ZERO);
		}
		this.out.println("Measuring:");
		List<RoundResult> results = new ArrayList<>();
		for (String setup : this.properties.getSetups()) {
			results.add(round(setup, args, this.properties.getWarmup(), this.properties.getDuration()));
		}
		printTable(results);
		Path chart = ComparisonChart.write(results, Path.of(this.properties.getOutputDirectory()),
				this.properties.getThreads());
		this.out.println("Chart: " + chart.toAbsolutePath());
		this.summary.forEach(this.out::println);
		return results.stream().anyMatch((result) -> result.errors() > 0) ? 1 : 0;
	}

	private RoundResult round(String setup, String[] args, Duration warmup, Duration duration) throws Exception {
		String[] profiles = PROFILES.get(setup);
		if (profiles == null) {
			throw new IllegalArgumentException("Unknown setup '" + setup + "'; use one of " + PROFILES.keySet());
		}
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(this.application).profiles(profiles)
			.run(args)) {
			ShopWorkload workload = new ShopWorkload(context.getBean(CatalogService.class),
					context.getBean(VisitCounter.class), context.getBean(Leaderboard.class),
					context.getBean(OrderService.class), context.getBean(JobQueue.class));
			ServerConnections connections = new ServerConnections(context.getBean(RedisConnectionFactory.class),
					context.getEnvironment().getProperty("spring.application.name", "lettuce-tuning-sample"));
			if (isFirst(setup) && duration.isZero()) {
				this.out.println("Redis: " + connections.address());
			}
			LoadRound.Measurement measurement = new LoadRound(workload, this.properties.getThreads(), this.out)
				.measure(setup, warmup, duration);
			long count = connections.count();
			if (!setup.equals("stock")) {
				rememberSummary(context);
			}
			return new RoundResult(setup, measurement.requestsPerSecond(), measurement.p99Millis(),
					measurement.errors(), count);
		}
	}

	private boolean isFirst(String setup) {
		return setup.equals(this.properties.getSetups().get(0));
	}

	// The last tuned setup's view, printed after the table.
	private void rememberSummary(ConfigurableApplicationContext context) {
		this.summary.clear();
		this.summary.add("");
		this.summary.add("GET /actuator/health/redis");
		this.summary.add("  " + RestClient.create()
			.get()
			.uri("http://localhost:" + context.getEnvironment().getProperty("local.server.port")
					+ "/actuator/health/redis")
			.exchange((request, response) -> response.bodyTo(String.class)));
		this.summary.add("");
		this.summary.add("GET /actuator/lettuce (summary)");
		TuningSummary.of(context.getBeanProvider(LettuceEndpoint.class).getIfAvailable())
			.forEach((line) -> this.summary.add("  " + line));
	}

	private void printTable(List<RoundResult> results) {
		long baseline = results.get(0).requestsPerSecond();
		this.out.println();
		this.out.printf("| %-8s | %12s | %8s | %9s | %7s | %22s |%n", "setup", "requests/s",
				"vs " + results.get(0).setup(), "p99 (ms)", "errors", "connections on server");
		this.out.printf("|%s|%s|%s|%s|%s|%s|%n", "-".repeat(10), "-".repeat(14), "-".repeat(10), "-".repeat(11),
				"-".repeat(9), "-".repeat(24));
		for (RoundResult result : results) {
			this.out.printf("| %-8s | %,12d | %7.2fx | %9.2f | %7d | %22d |%n", result.setup(),
					result.requestsPerSecond(), (double) result.requestsPerSecond() / Math.max(1, baseline),
					result.p99Millis(), result.errors(), result.connections());
		}
		this.out.println();
	}

}
