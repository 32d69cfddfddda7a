package io.github.lettucetuning.benchmarks.modes;

import org.jspecify.annotations.Nullable;

/**
 * The two commands every client under test runs, through whatever connection handling it
 * has.
 */
interface RedisOps extends AutoCloseable {

	/**
	 * A client that is not open: every command fails.
	 */
	RedisOps CLOSED = new RedisOps() {

		@Override
		public String set(String key, String value) {
			throw new IllegalStateException("No client open");
		}

		@Override
		public String get(String key) {
			throw new IllegalStateException("No client open");
		}

		@Override
		public void close() {
		}

	};

	/**
	 * Run {@code SET key value}.
	 * @param key the key
	 * @param value the value
	 * @return the reply, or a constant when the API returns none
	 */
	String set(String key, String value);

	/**
	 * Run {@code GET key}.
	 * @param key the key
	 * @return the value
	 */
	@Nullable String get(String key);

	@Override
	void close() throws Exception;

}
