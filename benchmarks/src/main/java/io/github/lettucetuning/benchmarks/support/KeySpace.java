package io.github.lettucetuning.benchmarks.support;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The keys and the value every benchmark uses: {@value #SIZE} keys of 16 bytes
 * ({@code key:000000000042}) and one 32-byte value, as strings and as bytes.
 */
public final class KeySpace {

	/**
	 * Number of distinct keys.
	 */
	public static final int SIZE = 10_000;

	/**
	 * The value every SET writes: 32 bytes.
	 */
	public static final String VALUE = "value-0123456789abcdefghijklmnop";

	private static final byte[] VALUE_BYTES = VALUE.getBytes(StandardCharsets.US_ASCII);

	private static final String[] KEYS = new String[SIZE];

	private static final byte[][] KEY_BYTES = new byte[SIZE][];

	static {
		for (int i = 0; i < SIZE; i++) {
			KEYS[i] = String.format("key:%012d", i);
			KEY_BYTES[i] = KEYS[i].getBytes(StandardCharsets.US_ASCII);
		}
	}

	private KeySpace() {
	}

	/**
	 * Return a key by its index.
	 * @param index from 0 to {@value #SIZE} - 1
	 * @return the key
	 */
	public static String key(int index) {
		return KEYS[index];
	}

	/**
	 * Return a random key.
	 * @return a key of 16 bytes
	 */
	public static String randomKey() {
		return KEYS[ThreadLocalRandom.current().nextInt(SIZE)];
	}

	/**
	 * Return a random key as bytes; the array is shared, never modify it.
	 * @return a key of 16 bytes
	 */
	public static byte[] randomKeyBytes() {
		return KEY_BYTES[ThreadLocalRandom.current().nextInt(SIZE)];
	}

	/**
	 * Return the value as bytes; the array is shared, never modify it.
	 * @return the 32-byte value
	 */
	public static byte[] valueBytes() {
		return VALUE_BYTES;
	}

	/**
	 * Return whether the next operation of an 80/20 GET/SET mix is a SET.
	 * @return {@code true} one time in five
	 */
	public static boolean nextIsSet() {
		return ThreadLocalRandom.current().nextInt(5) == 0;
	}

	/**
	 * Return the arguments of {@code MSET} commands that write every key, in chunks.
	 * @param chunk the number of keys per command
	 * @return the arguments of each command, {@code MSET} included
	 */
	public static String[][] msetCommands(int chunk) {
		int commands = (SIZE + chunk - 1) / chunk;
		String[][] all = new String[commands][];
		for (int c = 0; c < commands; c++) {
			int from = c * chunk;
			int to = Math.min(SIZE, from + chunk);
			String[] args = new String[1 + 2 * (to - from)];
			args[0] = "MSET";
			for (int i = from; i < to; i++) {
				args[1 + 2 * (i - from)] = KEYS[i];
				args[2 + 2 * (i - from)] = VALUE;
			}
			all[c] = args;
		}
		return all;
	}

}
