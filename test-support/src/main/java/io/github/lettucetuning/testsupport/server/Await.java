package io.github.lettucetuning.testsupport.server;

import java.time.Duration;
import java.util.concurrent.Callable;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounded polling used by every "wait until the servers agree" step. Failures carry the
 * last observed state so that a timeout explains itself.
 */
public final class Await {

	private static final Logger logger = LoggerFactory.getLogger(Await.class);

	private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

	private Await() {
	}

	/**
	 * Poll until the probe reports that the condition holds.
	 * @param timeout the maximum time to wait
	 * @param description what is awaited, used in the failure message
	 * @param probe returns {@code null} once the condition holds, otherwise a short
	 * description of the current state; exceptions count as "not yet"
	 * @throws RedisServerException on timeout
	 */
	public static void until(Duration timeout, String description, Probe probe) {
		forValue(timeout, description, () -> {
			String unmet = probe.unmetReason();
			return (unmet != null) ? Outcome.notYet(unmet) : Outcome.done(Boolean.TRUE);
		});
	}

	/**
	 * Poll until the supplier returns a value.
	 * @param <T> the type of the value
	 * @param timeout the maximum time to wait
	 * @param description what is awaited, used in the failure message
	 * @param supplier returns an {@link Outcome}; exceptions count as "not yet"
	 * @return the value
	 * @throws RedisServerException on timeout
	 */
	public static <T> T forValue(Duration timeout, String description, Callable<Outcome<T>> supplier) {
		long start = System.nanoTime();
		long deadline = start + timeout.toNanos();
		String lastState = "never checked";
		while (true) {
			try {
				Outcome<T> outcome = supplier.call();
				if (outcome.value() != null) {
					logger.debug("Waited {} ms for {}", Duration.ofNanos(System.nanoTime() - start).toMillis(),
							description);
					return outcome.value();
				}
				lastState = outcome.state();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new RedisServerException("Interrupted while waiting for " + description, ex);
			}
			catch (Exception ex) {
				lastState = ex.getClass().getSimpleName() + ": " + ex.getMessage();
			}
			if (System.nanoTime() >= deadline) {
				throw new RedisServerException("Timed out after " + timeout.toMillis() + " ms waiting for "
						+ description + ". Last state: " + lastState);
			}
			sleep(POLL_INTERVAL);
		}
	}

	/**
	 * Sleep without a checked exception, keeping the interrupt flag.
	 * @param duration how long to sleep
	 */
	public static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisServerException("Interrupted", ex);
		}
	}

	/**
	 * Checks a condition.
	 */
	@FunctionalInterface
	public interface Probe {

		/**
		 * Check the condition.
		 * @return {@code null} when the condition holds, otherwise why it does not
		 * @throws Exception counted as "not yet"
		 */
		@Nullable String unmetReason() throws Exception;

	}

	/**
	 * The outcome of one poll: either a value or the current state.
	 *
	 * @param <T> the type of the value
	 * @param value the value, {@code null} when not there yet
	 * @param state the observed state when there is no value
	 */
	public record Outcome<T>(@Nullable T value, String state) {

		public static <T> Outcome<T> done(T value) {
			return new Outcome<>(value, "done");
		}

		public static <T> Outcome<T> notYet(String state) {
			return new Outcome<>(null, state);
		}

	}

}
