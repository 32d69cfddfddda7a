package io.github.lettucetuning.benchmarks.report;

/**
 * One target and what the run measured against it.
 *
 * @param target what was asked
 * @param measured what was measured
 * @param outcome {@code PASS}, {@code MISS}, {@code INCONCLUSIVE}, {@code NO DATA}, or
 * {@code INFO} for a reference without a target
 * @param note how certain the outcome is
 * @author lettuce-tuning
 */
record Verdict(String target, String measured, String outcome, String note) {

	static Verdict noData(String target) {
		return new Verdict(target, "-", "NO DATA", "not measured in this run");
	}

}
