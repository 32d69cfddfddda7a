package io.github.lettucetuning.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Number formats of the report.
 *
 * @author lettuce-tuning
 */
final class Format {

	private Format() {
	}

	/**
	 * Format operations per second in thousands, e.g. {@code 93.1k}.
	 * @param spread the values
	 * @return the median
	 */
	static String kilo(Spread spread) {
		return spread.isEmpty() ? "-" : String.format(Locale.ROOT, "%.1fk", spread.median() / 1000);
	}

	/**
	 * Format a spread as {@code median [min-max]}, in thousands if it is a rate.
	 * @param spread the values
	 * @param rate whether the values are operations per second
	 * @return the text
	 */
	static String spread(Spread spread, boolean rate) {
		if (spread.isEmpty()) {
			return "-";
		}
		double scale = rate ? 1000 : 1;
		String pattern = rate ? "%.1fk [%.1f-%.1f]" : "%.1f [%.1f-%.1f]";
		return String.format(Locale.ROOT, pattern, spread.median() / scale, spread.min() / scale,
				spread.max() / scale);
	}

	/**
	 * Format a number with a fixed number of decimals.
	 * @param value the number
	 * @param decimals the decimals
	 * @return the text, {@code -} for NaN
	 */
	static String number(double value, int decimals) {
		return Double.isNaN(value) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", value);
	}

	/**
	 * Format a ratio, e.g. {@code 1.02x}.
	 * @param value the value
	 * @param reference the reference
	 * @return the text, {@code -} if either is missing
	 */
	static String ratio(double value, double reference) {
		if (Double.isNaN(value) || Double.isNaN(reference) || reference == 0) {
			return "-";
		}
		return String.format(Locale.ROOT, "%.2fx", value / reference);
	}

	/**
	 * Format differences, e.g. {@code +4.0k, +3.9k, -0.2k} or {@code +1.2, -0.3}.
	 * @param deltas the differences
	 * @param rate whether they are operations per second
	 * @return the text
	 */
	static String deltas(List<Double> deltas, boolean rate) {
		List<String> parts = new ArrayList<>();
		for (double delta : deltas) {
			parts.add(rate ? String.format(Locale.ROOT, "%+.1fk", delta / 1000)
					: String.format(Locale.ROOT, "%+.2f", delta));
		}
		return String.join(", ", parts);
	}

}
