package io.github.lettucetuning.benchmarks.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The joined results, with look-ups by benchmark class, method, setup and threads.
 *
 * @author lettuce-tuning
 */
final class ResultSet {

	/**
	 * Simple name of the mode benchmark class.
	 */
	static final String MODES = "ModesBenchmark";

	/**
	 * Simple name of the end-to-end timer benchmark class.
	 */
	static final String TIMER = "TimerE2eBenchmark";

	private final List<ResultRow> rows;

	ResultSet(List<ResultRow> rows) {
		List<ResultRow> sorted = new ArrayList<>(rows);
		sorted.sort(Comparator.comparing((ResultRow row) -> row.key().benchmarkClass())
			.thenComparing((row) -> row.key().threads())
			.thenComparing((row) -> SetupNames.rank(row.key().setup()))
			.thenComparing((row) -> row.key().setup())
			.thenComparing((row) -> row.key().method()));
		this.rows = sorted;
	}

	List<ResultRow> rows() {
		return this.rows;
	}

	/**
	 * Return the rows of one benchmark class.
	 * @param benchmarkClass the simple class name
	 * @return its rows
	 */
	List<ResultRow> of(String benchmarkClass) {
		return this.rows.stream().filter((row) -> row.key().benchmarkClass().equals(benchmarkClass)).toList();
	}

	/**
	 * Return the benchmark classes other than the two standard ones.
	 * @return simple class names
	 */
	List<String> otherClasses() {
		TreeSet<String> classes = new TreeSet<>();
		this.rows.forEach((row) -> classes.add(row.key().benchmarkClass()));
		classes.remove(MODES);
		classes.remove(TIMER);
		return new ArrayList<>(classes);
	}

	/**
	 * Return the thread counts of a benchmark class, ascending.
	 * @param benchmarkClass the simple class name
	 * @return the thread counts
	 */
	List<Integer> threads(String benchmarkClass) {
		TreeSet<Integer> threads = new TreeSet<>();
		of(benchmarkClass).forEach((row) -> threads.add(row.key().threads()));
		return new ArrayList<>(threads);
	}

	/**
	 * Return the setups (parameter values) of a benchmark class, in display order.
	 * @param benchmarkClass the simple class name
	 * @param threads the thread count
	 * @return the setups
	 */
	List<String> setups(String benchmarkClass, int threads) {
		List<String> setups = new ArrayList<>();
		for (ResultRow row : of(benchmarkClass)) {
			if (row.key().threads() == threads && !setups.contains(row.key().setup())) {
				setups.add(row.key().setup());
			}
		}
		return setups;
	}

	/**
	 * Find one row.
	 * @param benchmarkClass the simple class name
	 * @param method the benchmark method
	 * @param setup the parameter value
	 * @param threads the thread count, or {@code 0} for any
	 * @return the row
	 */
	Optional<ResultRow> find(String benchmarkClass, String method, String setup, int threads) {
		return of(benchmarkClass).stream()
			.filter((row) -> row.key().method().equals(method) && row.key().setup().equals(setup)
					&& (threads == 0 || row.key().threads() == threads))
			.findFirst();
	}

	/**
	 * Return a metric of one row.
	 * @param benchmarkClass the simple class name
	 * @param method the benchmark method
	 * @param setup the parameter value
	 * @param threads the thread count, or {@code 0} for any
	 * @param metric the metric
	 * @return its spread, {@link Spread#NONE} if absent
	 */
	Spread spread(String benchmarkClass, String method, String setup, int threads, Metric metric) {
		return find(benchmarkClass, method, setup, threads).map((row) -> row.spread(metric)).orElse(Spread.NONE);
	}

}
