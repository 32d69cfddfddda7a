package io.github.lettucetuning.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Traffic through a {@link StringRedisTemplate} on many threads while a test injects a
 * fault: every command is timed and counted as a success or a failure, so a test can
 * check that none hung past its timeout, none was lost, and when failures stopped.
 */
final class FaultLoad implements AutoCloseable {

	private static final int KEYS = 10_000;

	private static final long SLOW_NANOS = Duration.ofMillis(1500).toNanos();

	private final StringRedisTemplate template;

	private final List<Thread> threads = new ArrayList<>();

	private final long startNanos = System.nanoTime();

	private final AtomicLong attempts = new AtomicLong();

	private final AtomicLong successes = new AtomicLong();

	private final AtomicLong failures = new AtomicLong();

	private final AtomicLong maxDurationNanos = new AtomicLong();

	private final AtomicLong firstFailureStart = new AtomicLong(Long.MAX_VALUE);

	private final AtomicLong lastFailureEnd = new AtomicLong(Long.MIN_VALUE);

	private final AtomicLong lastSuccessEnd = new AtomicLong(Long.MIN_VALUE);

	private final Map<String, LongAdder> failureTypes = new ConcurrentHashMap<>();

	private volatile boolean running = true;

	private FaultLoad(StringRedisTemplate template) {
		this.template = template;
	}

	/**
	 * Warm up, then start {@code threads} threads, each alternating SET and GET on random
	 * keys.
	 * @param template the template
	 * @param threads the number of threads
	 * @return the running load
	 */
	static FaultLoad start(StringRedisTemplate template, int threads) {
		// Connect and load the topology before the fault, as a running application has
		for (int i = 0; i < 100; i++) {
			template.opsForValue().set("fault:" + i, "v");
		}
		FaultLoad load = new FaultLoad(template);
		load.inFlightSince = new long[threads];
		for (int i = 0; i < threads; i++) {
			int index = i;
			Thread thread = new Thread(() -> load.work(index), "fault-load-" + i);
			thread.setDaemon(true);
			load.threads.add(thread);
			thread.start();
		}
		Thread watchdog = new Thread(load::watch, "fault-load-watchdog");
		watchdog.setDaemon(true);
		watchdog.start();
		return load;
	}

	private volatile long[] inFlightSince = new long[0];

	// Prints where a command that outlives its timeout is stuck, a few times per load.
	private void watch() {
		int dumps = 0;
		long[] dumped = new long[this.inFlightSince.length];
		while (this.running && dumps < 3) {
			long now = System.nanoTime();
			for (int i = 0; i < this.inFlightSince.length; i++) {
				long since = this.inFlightSince[i];
				if (since != 0 && dumped[i] != since && now - since > SLOW_NANOS && dumps < 3) {
					dumped[i] = since;
					dumps++;
					StringBuilder stack = new StringBuilder("[fault] slow command on " + this.threads.get(i).getName()
							+ " for " + seconds(Duration.ofNanos(now - since)) + ":");
					for (StackTraceElement element : this.threads.get(i).getStackTrace()) {
						stack.append(System.lineSeparator()).append("\tat ").append(element);
					}
					System.out.println(stack);
				}
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	private void work(int index) {
		boolean set = true;
		while (this.running) {
			String key = "fault:" + ThreadLocalRandom.current().nextInt(KEYS);
			this.attempts.incrementAndGet();
			long start = System.nanoTime();
			this.inFlightSince[index] = start;
			try {
				if (set) {
					this.template.opsForValue().set(key, "v");
				}
				else {
					this.template.opsForValue().get(key);
				}
				long end = System.nanoTime();
				this.lastSuccessEnd.accumulateAndGet(end, Math::max);
				this.successes.incrementAndGet();
				record(start, end);
			}
			catch (RuntimeException ex) {
				long end = System.nanoTime();
				this.firstFailureStart.accumulateAndGet(start, Math::min);
				this.lastFailureEnd.accumulateAndGet(end, Math::max);
				this.failures.incrementAndGet();
				this.failureTypes.computeIfAbsent(describe(ex), (type) -> new LongAdder()).increment();
				record(start, end);
			}
			this.inFlightSince[index] = 0;
			set = !set;
		}
	}

	private void record(long start, long end) {
		this.maxDurationNanos.accumulateAndGet(end - start, Math::max);
	}

	private static String describe(Throwable ex) {
		Throwable root = NestedExceptionUtils.getMostSpecificCause(ex);
		String message = String.valueOf(root.getMessage());
		int cut = message.indexOf(' ', Math.min(message.length(), 40));
		return root.getClass().getSimpleName() + ": " + ((cut > 0) ? message.substring(0, cut) + "..." : message);
	}

	/**
	 * Wait until some commands succeeded and none failed for {@code quiet}.
	 * @param quiet how long no command may fail
	 * @param max the maximum time to wait
	 * @return whether the traffic became quiet in time
	 */
	boolean awaitQuiet(Duration quiet, Duration max) {
		try {
			Awaitility.await().atMost(max).pollInterval(Duration.ofMillis(50)).until(() -> isQuiet(quiet));
			return true;
		}
		catch (ConditionTimeoutException ex) {
			return false;
		}
	}

	private boolean isQuiet(Duration quiet) {
		long now = System.nanoTime();
		long lastFailure = this.lastFailureEnd.get();
		boolean quietSince = lastFailure == Long.MIN_VALUE || now - lastFailure >= quiet.toNanos();
		return quietSince && now - this.lastSuccessEnd.get() < Duration.ofMillis(500).toNanos()
				&& now - this.startNanos >= quiet.toNanos();
	}

	/**
	 * Let the load run for a while.
	 * @param duration how long
	 */
	static void sleep(Duration duration) throws InterruptedException {
		Thread.sleep(duration.toMillis());
	}

	long now() {
		return System.nanoTime();
	}

	long attempts() {
		return this.attempts.get();
	}

	long successes() {
		return this.successes.get();
	}

	long failures() {
		return this.failures.get();
	}

	Duration maxCommandDuration() {
		return Duration.ofNanos(this.maxDurationNanos.get());
	}

	/**
	 * Return the time from the start of the first failed command to the end of the last
	 * one, zero without failures.
	 * @return the failure window
	 */
	Duration failureWindow() {
		return (this.failures.get() == 0) ? Duration.ZERO
				: Duration.ofNanos(this.lastFailureEnd.get() - this.firstFailureStart.get());
	}

	/**
	 * Return the time from a fault to the end of the last failed command, zero without
	 * failures.
	 * @param faultNanos when the fault was injected ({@link System#nanoTime()})
	 * @return the time to recover
	 */
	Duration recoveredAfter(long faultNanos) {
		return (this.failures.get() == 0) ? Duration.ZERO
				: Duration.ofNanos(Math.max(0, this.lastFailureEnd.get() - faultNanos));
	}

	/**
	 * Return whether a command failed after the given time.
	 * @param nanos the time ({@link System#nanoTime()})
	 * @return whether a failure ended after it
	 */
	boolean failedAfter(long nanos) {
		return this.failures.get() > 0 && this.lastFailureEnd.get() > nanos;
	}

	Map<String, Long> failureTypes() {
		Map<String, Long> types = new TreeMap<>();
		this.failureTypes.forEach((type, count) -> types.put(type, count.sum()));
		return types;
	}

	/**
	 * Stop the threads, wait for them, and check that every command was accounted for.
	 */
	@Override
	public void close() throws InterruptedException {
		this.running = false;
		for (Thread thread : this.threads) {
			thread.join(TimeUnit.SECONDS.toMillis(30));
			assertThat(thread.isAlive()).as("%s still running: a command hangs", thread.getName()).isFalse();
		}
		assertThat(this.attempts.get()).as("attempts = successes + failures")
			.isEqualTo(this.successes.get() + this.failures.get());
	}

	/**
	 * Print a measured window in the common format and append it to
	 * {@code target/fault-windows.txt}.
	 * @param scenario the scenario name
	 * @param settings the settings that produced it
	 * @param details further measurements, e.g. {@code recovered=4.1s}
	 */
	void report(String scenario, String settings, String details) {
		String line = String.format(Locale.ROOT,
				"[fault] %s: attempts=%d failures=%d window=%s %s max-command=%s settings=%s", scenario, attempts(),
				failures(), seconds(failureWindow()), details, seconds(maxCommandDuration()), settings);
		System.out.println(line);
		System.out.println("[fault] " + scenario + " failure types: " + failureTypes());
		try {
			Files.writeString(Path.of("target", "fault-windows.txt"), line + System.lineSeparator(),
					StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			// The console line is what counts
		}
	}

	static String seconds(Duration duration) {
		return String.format(Locale.ROOT, "%.2fs", duration.toNanos() / 1e9);
	}

}
