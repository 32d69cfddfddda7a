package io.github.lettucetuning.benchmarks.report;

import java.util.Map;
import java.util.TreeMap;

/**
 * What identifies one benchmark result: the benchmark method, its parameters and the
 * thread count.
 *
 * @param benchmark the fully qualified benchmark method
 * @param params the parameters, sorted by name
 * @param threads the number of benchmark threads
 * @author lettuce-tuning
 */
record ResultKey(String benchmark, Map<String, String> params, int threads) {

	ResultKey {
		params = new TreeMap<>(params);
	}

	/**
	 * Return the simple name of the benchmark class.
	 * @return e.g. {@code ModesBenchmark}
	 */
	String benchmarkClass() {
		String withoutMethod = this.benchmark.substring(0, this.benchmark.lastIndexOf('.'));
		return withoutMethod.substring(withoutMethod.lastIndexOf('.') + 1);
	}

	/**
	 * Return the benchmark method name.
	 * @return e.g. {@code set}
	 */
	String method() {
		return this.benchmark.substring(this.benchmark.lastIndexOf('.') + 1);
	}

	/**
	 * Return the value of the only parameter, the setup or timer name.
	 * @return the parameter value, or an empty string
	 */
	String setup() {
		return this.params.values().stream().findFirst().orElse("");
	}

}
