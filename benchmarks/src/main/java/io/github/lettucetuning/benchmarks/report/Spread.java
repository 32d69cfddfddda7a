package io.github.lettucetuning.benchmarks.report;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The median, minimum and maximum of some values.
 *
 * @param median the median
 * @param min the smallest value
 * @param max the largest value
 * @param count how many values there were
 * @author lettuce-tuning
 */
record Spread(double median, double min, double max, int count) {

	/**
	 * No values.
	 */
	static final Spread NONE = new Spread(Double.NaN, Double.NaN, Double.NaN, 0);

	/**
	 * Summarise values; {@link Double#NaN} values are ignored.
	 * @param values the values
	 * @return their spread, {@link #NONE} when there are none
	 */
	static Spread of(List<Double> values) {
		List<Double> sorted = new ArrayList<>();
		for (Double value : values) {
			if (value != null && !value.isNaN()) {
				sorted.add(value);
			}
		}
		if (sorted.isEmpty()) {
			return NONE;
		}
		Collections.sort(sorted);
		int n = sorted.size();
		double median = (n % 2 == 1) ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
		return new Spread(median, sorted.get(0), sorted.get(n - 1), n);
	}

	boolean isEmpty() {
		return this.count == 0;
	}

	/**
	 * Return the width of the range relative to the median.
	 * @return (max - min) / median
	 */
	double relativeRange() {
		return (this.max - this.min) / this.median;
	}

}
