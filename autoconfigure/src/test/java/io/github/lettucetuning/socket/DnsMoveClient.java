package io.github.lettucetuning.socket;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.netty.resolver.DefaultAddressResolverGroup;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The application side of {@link DnsMoveIntegrationTests}, run in a JVM of its own
 * because the JDK reads {@code jdk.net.hosts.file} once per JVM. It starts a Spring Boot
 * context connecting to {@code redis-primary.test} and writes from 8 threads. Each line
 * on standard input ends a phase; what the phase saw goes to {@code <result>.<phase>} as
 * {@code key=value} lines: successes, failures, the longest a caller waited, and the
 * first failure's causes. The line {@code stop} (or the end of input) ends the run.
 * <p>
 * Arguments: the setup ({@code starter}, {@code stock} or {@code stock-jdk-resolver}),
 * the port, the result file, and optionally a key prefix (default {@code dns}). Each
 * writer sets a key of its own, then reads it back; a phase reports when its first and
 * last writes failed and when a write first succeeded after a failure (epoch
 * milliseconds, so that the test's JVM can compare them with its own clock). The last
 * report also goes with {@code <result>.acked}: every key whose {@code SET} returned
 * {@code OK}, one per line.
 */
public final class DnsMoveClient {

	static final String HOST = "redis-primary.test";

	static final int THREADS = 8;

	private DnsMoveClient() {
	}

	public static void main(String[] args) throws Exception {
		String setup = args[0];
		int port = Integer.parseInt(args[1]);
		Path result = Path.of(args[2]);
		String keyPrefix = (args.length > 3) ? args[3] : "dns";
		List<String> properties = new ArrayList<>(List.of("spring.data.redis.host=" + HOST,
				"spring.data.redis.port=" + port, "spring.application.name=dns-move-" + setup));
		if (!"starter".equals(setup)) {
			properties.add("lettuce.tuning.enabled=false");
		}
		SpringApplicationBuilder builder = new SpringApplicationBuilder(
				"stock-jdk-resolver".equals(setup) ? JdkResolverApplication.class : Application.class)
			.web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new));
		try (ConfigurableApplicationContext context = builder.run()) {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Traffic traffic = new Traffic(template, keyPrefix);
			traffic.start();
			System.out.println("dns-move-client: writing");
			BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			// Each line ends a phase: its report goes to result.<n>, and the next phase
			// counts afresh, so that what callers waited in one (the first connect, a
			// cold JVM) is not blamed on the next. "stop" ends the run.
			for (int phase = 0;; phase++) {
				String line = input.readLine();
				boolean last = (line == null || line.equals("stop"));
				if (last) {
					traffic.stop();
				}
				Path report = result.resolveSibling(result.getFileName() + "." + phase);
				Path written = Files.write(report.resolveSibling(report.getFileName() + ".tmp"), traffic.endPhase());
				Files.move(written, report, StandardCopyOption.ATOMIC_MOVE);
				if (last) {
					Path acked = result.resolveSibling(result.getFileName() + ".acked");
					Files.move(Files.write(acked.resolveSibling(acked.getFileName() + ".tmp"), traffic.acked()), acked,
							StandardCopyOption.ATOMIC_MOVE);
					break;
				}
			}
		}
		System.exit(0);
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class })
	static class Application {

	}

	// Stock Boot with the JDK's resolver: what Lettuce used before netty-resolver-dns
	// became required, and what an application gets that sets it to honour the JVM's
	// name service.
	@SpringBootConfiguration(proxyBeanMethods = false)
	@ImportAutoConfiguration(DataRedisAutoConfiguration.class)
	static class JdkResolverApplication {

		@Bean
		ClientResourcesBuilderCustomizer jdkResolver() {
			return (builder) -> builder.addressResolverGroup(DefaultAddressResolverGroup.INSTANCE);
		}

	}

	private static final class Traffic {

		private final StringRedisTemplate template;

		private final String keyPrefix;

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final Queue<String> acked = new ConcurrentLinkedQueue<>();

		// Epoch milliseconds, 0 until it happens in the phase.
		private final AtomicLong firstFailureAt = new AtomicLong();

		private final AtomicLong lastFailureAt = new AtomicLong();

		private final AtomicLong recoveredAt = new AtomicLong();

		private final AtomicLong successes = new AtomicLong();

		private final AtomicLong failures = new AtomicLong();

		private final AtomicLong longestWaitNanos = new AtomicLong();

		private final AtomicReference<String> firstFailure = new AtomicReference<>("none");

		// When each writer's call in progress started, 0 between calls: a caller still
		// waiting when the run ends counts too.
		private final AtomicLongArray callStarts = new AtomicLongArray(THREADS);

		private final List<Thread> threads = new ArrayList<>();

		Traffic(StringRedisTemplate template, String keyPrefix) {
			this.template = template;
			this.keyPrefix = keyPrefix;
		}

		void start() {
			for (int i = 0; i < THREADS; i++) {
				int id = i;
				Thread thread = new Thread(() -> write(id), "dns-move-writer-" + i);
				this.threads.add(thread);
				thread.start();
			}
		}

		private void write(int id) {
			long n = 0;
			while (this.running.get()) {
				long start = System.nanoTime();
				this.callStarts.set(id, start);
				String key = this.keyPrefix + ":" + id + ":" + n++;
				try {
					this.template.opsForValue().set(key, "v");
					this.acked.add(key);
					long now = System.currentTimeMillis();
					if (this.lastFailureAt.get() != 0) {
						this.recoveredAt.compareAndSet(0, now);
					}
					this.template.opsForValue().get(key);
					this.successes.incrementAndGet();
				}
				catch (RuntimeException ex) {
					this.failures.incrementAndGet();
					this.firstFailure.compareAndSet("none", describe(ex));
					long now = System.currentTimeMillis();
					this.firstFailureAt.compareAndSet(0, now);
					this.lastFailureAt.set(now);
				}
				this.callStarts.set(id, 0);
				this.longestWaitNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
				sleepQuietly();
			}
		}

		// Every cause, outermost first, on one line.
		private static String describe(Throwable failure) {
			StringBuilder chain = new StringBuilder();
			for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
				chain.append((chain.isEmpty()) ? "" : " <- ")
					.append(cause.getClass().getName())
					.append(": ")
					.append(cause.getMessage());
			}
			return chain.toString().replace('\n', ' ');
		}

		// Paced, so that 8 writers leave the shared 2-core machine some room.
		private static void sleepQuietly() {
			try {
				Thread.sleep(5);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		void stop() throws InterruptedException {
			this.running.set(false);
			for (Thread thread : this.threads) {
				// Bounded: a caller of stock Boot may wait out the command timeout (60s)
				thread.join(TimeUnit.SECONDS.toMillis(90));
			}
		}

		// The phase's report; the next phase starts counting from zero. A call in
		// progress counts in both.
		List<String> endPhase() {
			long now = System.nanoTime();
			for (int i = 0; i < THREADS; i++) {
				long start = this.callStarts.get(i);
				if (start != 0) {
					this.longestWaitNanos.accumulateAndGet(now - start, Math::max);
				}
			}
			return List.of("successes=" + this.successes.getAndSet(0), "failures=" + this.failures.getAndSet(0),
					"longest-wait-ms=" + TimeUnit.NANOSECONDS.toMillis(this.longestWaitNanos.getAndSet(0)),
					"first-failure=" + this.firstFailure.getAndSet("none"),
					"first-failure-at=" + this.firstFailureAt.getAndSet(0),
					"last-failure-at=" + this.lastFailureAt.getAndSet(0),
					"recovered-at=" + this.recoveredAt.getAndSet(0));
		}

		List<String> acked() {
			return List.copyOf(this.acked);
		}

	}

}
