package io.github.lettucetuning.benchmarks.report;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One benchmark with every metric, as lists of values per fork (each fork a list of
 * measurement iterations). The central value of a metric is the median over fork means
 * when there are several forks, the median over iterations otherwise; its spread is over
 * the same values.
 *
 * @author lettuce-tuning
 */
final class ResultRow {

	private final ResultKey key;

	private final Map<Metric, List<List<Double>>> values = new EnumMap<>(Metric.class);

	private int dropped;

	private final List<Integer> rounds = new ArrayList<>();

	ResultRow(ResultKey key) {
		this.key = key;
	}

	ResultKey key() {
		return this.key;
	}

	/**
	 * Add the iterations of one fork.
	 * @param metric the metric
	 * @param iterations its values in the fork
	 */
	void addFork(Metric metric, List<Double> iterations) {
		this.values.computeIfAbsent(metric, (m) -> new ArrayList<>()).add(iterations);
	}

	/**
	 * Record the round of the next side-file fork.
	 * @param round the round
	 */
	void addRound(int round) {
		this.rounds.add(round);
	}

	/**
	 * Return the rounds of the side-file forks, in fork order.
	 * @return the rounds
	 */
	List<Integer> rounds() {
		return this.rounds;
	}

	/**
	 * Return the fork means of a side-file metric by round.
	 * @param metric the metric
	 * @return the mean of each round's fork
	 */
	Map<Integer, Double> byRound(Metric metric) {
		Map<Integer, Double> byRound = new TreeMap<>();
		List<Double> means = forkMeans(metric);
		for (int i = 0; i < Math.min(means.size(), this.rounds.size()); i++) {
			byRound.put(this.rounds.get(i), means.get(i));
		}
		return byRound;
	}

	/**
	 * Count side-file iterations left out as disturbed.
	 * @param count the number left out
	 */
	void addDropped(int count) {
		this.dropped += count;
	}

	/**
	 * Return the number of side-file iterations left out as disturbed.
	 * @return the number left out
	 */
	int dropped() {
		return this.dropped;
	}

	/**
	 * Return the number of forks, the largest over the metrics.
	 * @return the number of forks
	 */
	int forks() {
		int forks = 0;
		for (List<List<Double>> perFork : this.values.values()) {
			forks = Math.max(forks, perFork.size());
		}
		return forks;
	}

	/**
	 * Return the mean of each fork.
	 * @param metric the metric
	 * @return one mean per fork
	 */
	List<Double> forkMeans(Metric metric) {
		List<Double> means = new ArrayList<>();
		for (List<Double> fork : this.values.getOrDefault(metric, List.of())) {
			means.add(fork.stream().filter((v) -> !v.isNaN()).mapToDouble(Double::doubleValue).average().orElse(Double.NaN));
		}
		return means;
	}

	/**
	 * Return every iteration value.
	 * @param metric the metric
	 * @return the values of all forks
	 */
	List<Double> iterations(Metric metric) {
		List<Double> all = new ArrayList<>();
		this.values.getOrDefault(metric, List.of()).forEach(all::addAll);
		return all;
	}

	/**
	 * Return the spread of a metric: over fork means with several forks, over iterations
	 * with one.
	 * @param metric the metric
	 * @return the spread
	 */
	Spread spread(Metric metric) {
		List<List<Double>> perFork = this.values.getOrDefault(metric, List.of());
		return (perFork.size() > 1) ? Spread.of(forkMeans(metric)) : Spread.of(iterations(metric));
	}

	/**
	 * Return the central value of a metric.
	 * @param metric the metric
	 * @return the median, NaN if not measured
	 */
	double value(Metric metric) {
		return spread(metric).median();
	}

}
