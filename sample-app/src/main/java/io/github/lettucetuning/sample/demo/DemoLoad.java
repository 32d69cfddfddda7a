package io.github.lettucetuning.sample.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.ExitCodeGenerator;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.web.client.RestClient;

/**
 * Drives the shop with concurrent load for a while, printing a live progress line, then
 * prints the app's connections as the Redis server sees them and the health report.
 * The application exits afterwards, with a non-zero code if any request failed.
 *
 * @author lettuce-tuning
 */
class DemoLoad implements ApplicationRunner, ExitCodeGenerator {

	private static final PrintStream out = System.out;

	private final ShopWorkload workload;

	private final DemoProperties properties;

	private final ServerConnections connections;

	private final ConfigurableApplicationContext context;

	private final Supplier<List<String>> tuning;

	private final LongAdder requests = new LongAdder();

	private final LongAdder errors = new LongAdder();

	private volatile boolean running = true;

	DemoLoad(ShopWorkload workload, DemoProperties properties, ServerConnections connections,
			ConfigurableApplicationContext context, Supplier<List<String>> tuning) {
		this.workload = workload;
		this.tuning = tuning;
		this.properties = properties;
		this.connections = connections;
		this.context = context;
	}

	@Override
	public void run(ApplicationArguments args) throws InterruptedException {
		Environment environment = this.context.getEnvironment();
		out.printf("%nlettuce-tuning demo: %d threads for %ds, Redis at %s, connection mode '%s'%n",
				this.properties.getThreads(), this.properties.getDuration().toSeconds(), this.connections.address(),
				environment.getProperty("lettuce.tuning.connection.mode", "shared"));
		List<Thread> threads = startThreads();
		long total = reportProgress(this.properties.getDuration());
		this.running = false;
		for (Thread thread : threads) {
			thread.join(TimeUnit.SECONDS.toMillis(5));
		}
		printSummary(total);
		printHealth(environment.getProperty("local.server.port"));
		out.println("\nGET /actuator/lettuce (summary)");
		this.tuning.get().forEach((line) -> out.println("  " + line));
	}

	@Override
	public int getExitCode() {
		return (this.errors.sum() > 0) ? 1 : 0;
	}

	private List<Thread> startThreads() {
		List<Thread> threads = new ArrayList<>();
		for (int i = 0; i < this.properties.getThreads(); i++) {
			Thread thread = new Thread(this::sendRequests, "demo-" + i);
			thread.setDaemon(true);
			thread.start();
			threads.add(thread);
		}
		return threads;
	}

	private void sendRequests() {
		while (this.running) {
			try {
				this.workload.request();
				this.requests.increment();
			}
			catch (RuntimeException ex) {
				this.errors.increment();
			}
		}
	}

	private long reportProgress(Duration duration) throws InterruptedException {
		long seconds = duration.toSeconds();
		long previous = 0;
		for (long second = 1; second <= seconds; second++) {
			Thread.sleep(1000);
			long now = this.requests.sum();
			out.printf("\r  %3ds  %,9d requests/s  %,11d total  %,d errors   ", second, now - previous, now,
					this.errors.sum());
			out.flush();
			previous = now;
		}
		out.println();
		return previous;
	}

	private void printSummary(long total) {
		out.printf("%nDone: %,d requests in %ds (%,d/s on average), %,d errors.%n", total,
				this.properties.getDuration().toSeconds(), total / Math.max(1, this.properties.getDuration().toSeconds()),
				this.errors.sum());
		out.println("Connections of this app on the Redis server (CLIENT LIST, by client name):");
		this.connections.describe().forEach((line) -> out.println("  " + line));
	}

	// The Redis contributor only: while a runner runs, readiness (and so the overall
	// status) is still OUT_OF_SERVICE.
	private void printHealth(String port) {
		String health = RestClient.create()
			.get()
			.uri("http://localhost:" + port + "/actuator/health/redis")
			.exchange((request, response) -> response.bodyTo(String.class));
		out.println("\nGET /actuator/health/redis");
		out.println("  " + health);
	}

}
