package io.github.lettucetuning.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One setup against another from forks paired by round. Each round ran one fork of each,
 * close in time; on 2 cores with 200 threads the level of a fork drifts with the machine
 * over minutes, for every setup alike, so the ratio within a round is steadier than a
 * ratio of medians taken over forks minutes apart.
 *
 * @param rounds the rounds that hold a fork of both setups
 * @param ratios per round, the setup's value over the reference's
 * @param median the median of the ratios
 * @param wins the rounds in which the setup's value was higher
 * @author lettuce-tuning
 */
record PairedRatio(List<Integer> rounds, List<Double> ratios, double median, int wins) {

	/**
	 * The fewest rounds a paired ratio decides on; with fewer, a verdict falls back to the
	 * ratio of medians.
	 */
	static final int MIN_ROUNDS = 3;

	/**
	 * Pair forks by round, in round order.
	 * @param measured fork means of the setup by round
	 * @param reference fork means of the reference by round
	 * @return the paired ratio
	 */
	static PairedRatio of(Map<Integer, Double> measured, Map<Integer, Double> reference) {
		List<Integer> rounds = new ArrayList<>();
		List<Double> ratios = new ArrayList<>();
		int wins = 0;
		for (Map.Entry<Integer, Double> entry : new TreeMap<>(measured).entrySet()) {
			Double other = reference.get(entry.getKey());
			if (other == null || other.isNaN() || entry.getValue().isNaN() || other == 0) {
				continue;
			}
			double ratio = entry.getValue() / other;
			rounds.add(entry.getKey());
			ratios.add(ratio);
			wins += (ratio > 1) ? 1 : 0;
		}
		return new PairedRatio(rounds, ratios, Spread.of(ratios).median(), wins);
	}

	/**
	 * Return whether there are enough rounds to decide on.
	 * @return whether at least {@link #MIN_ROUNDS} rounds pair up
	 */
	boolean decides() {
		return this.rounds.size() >= MIN_ROUNDS;
	}

	/**
	 * Return the one-sided sign-test probability of this many wins or more by chance.
	 * @return the probability
	 */
	double signTestP() {
		return SignTest.p(this.wins, this.rounds.size());
	}

}
