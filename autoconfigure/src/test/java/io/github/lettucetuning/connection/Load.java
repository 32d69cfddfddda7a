package io.github.lettucetuning.connection;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs a bounded amount of work on many threads at once, for tests.
 */
final class Load {

	private Load() {
	}

	/**
	 * Run {@code operations} calls of {@code operation} on each of {@code threads}
	 * threads and wait for all of them; the operation receives a per-thread sequence
	 * number and ends its thread early by throwing {@link Stop}.
	 * @param threads the number of threads
	 * @param operations the operations per thread
	 * @param operation the operation, given {@code thread * operations + i}
	 * @return the number of operations that threw
	 */
	static long run(int threads, int operations, IntConsumer operation) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		AtomicLong failures = new AtomicLong();
		try {
			List<Future<?>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				futures.add(executor.submit(() -> {
					for (int i = 0; i < operations; i++) {
						try {
							operation.accept(thread * operations + i);
						}
						catch (Stop ex) {
							return;
						}
						catch (RuntimeException ex) {
							failures.incrementAndGet();
						}
					}
				}));
			}
			for (Future<?> future : futures) {
				future.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
			assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
		return failures.get();
	}

	/**
	 * Thrown by an operation to end its thread without counting a failure.
	 */
	static final class Stop extends RuntimeException {

	}

}
