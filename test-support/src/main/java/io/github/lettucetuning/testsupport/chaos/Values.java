package io.github.lettucetuning.testsupport.chaos;

import org.jspecify.annotations.Nullable;

/**
 * Values that carry the key they were written to and a sequence number, so that a reply
 * delivered to the wrong caller cannot pass for a right one.
 */
public final class Values {

	private static final char SEPARATOR = '#';

	private Values() {
	}

	/**
	 * Return the value to write.
	 * @param key the key it is written to
	 * @param sequence its sequence number for that key
	 * @return the value
	 */
	public static String encode(String key, long sequence) {
		return key + SEPARATOR + sequence;
	}

	/**
	 * Parse a value written by {@link #encode(String, long)}.
	 * @param value the value read
	 * @return the key and sequence, or {@code null} if the value was not written so
	 */
	public static @Nullable Written parse(@Nullable String value) {
		if (value == null) {
			return null;
		}
		int separator = value.lastIndexOf(SEPARATOR);
		if (separator <= 0) {
			return null;
		}
		try {
			return new Written(value.substring(0, separator), Long.parseLong(value.substring(separator + 1)));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * A parsed value.
	 *
	 * @param key the key it was written to
	 * @param sequence its sequence number
	 */
	public record Written(String key, long sequence) {

	}

}
