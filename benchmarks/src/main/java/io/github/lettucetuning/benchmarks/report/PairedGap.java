package io.github.lettucetuning.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How much of the gap between Lettuce's stock timer ({@code netty}) and no command
 * timeouts ({@code off}) the {@code wheel} timer closes, from forks paired by round: each
 * round ran one fork of each right after another, so slow drift of the machine cancels
 * out in the differences within a round.
 *
 * @param rounds the rounds with all three forks
 * @param offGain per round, how much better {@code off} did than {@code netty}
 * @param wheelGain per round, how much better {@code wheel} did than {@code netty}
 * @param closed median wheel gain over median off gain
 * @param offBetter rounds in which {@code off} did better than {@code netty}
 * @param wheelBetter rounds in which {@code wheel} did better than {@code netty}
 * @param signTestP one-sided sign-test probability of {@code offBetter} or more of the
 * rounds by chance
 * @author lettuce-tuning
 */
record PairedGap(List<Integer> rounds, List<Double> offGain, List<Double> wheelGain, double closed, int offBetter,
		int wheelBetter, double signTestP) {

	/**
	 * Pair forks by round.
	 * @param wheel fork means of the wheel timer by round
	 * @param netty fork means of the netty timer by round
	 * @param off fork means without timeouts by round
	 * @param higherIsBetter whether higher values are better (throughput) or lower (cost)
	 * @return the paired gap
	 */
	static PairedGap of(Map<Integer, Double> wheel, Map<Integer, Double> netty, Map<Integer, Double> off,
			boolean higherIsBetter) {
		double sign = higherIsBetter ? 1 : -1;
		List<Integer> rounds = new ArrayList<>();
		List<Double> offGain = new ArrayList<>();
		List<Double> wheelGain = new ArrayList<>();
		int offBetter = 0;
		int wheelBetter = 0;
		for (Map.Entry<Integer, Double> entry : netty.entrySet()) {
			Double w = wheel.get(entry.getKey());
			Double o = off.get(entry.getKey());
			if (w == null || o == null) {
				continue;
			}
			rounds.add(entry.getKey());
			double offDelta = sign * (o - entry.getValue());
			double wheelDelta = sign * (w - entry.getValue());
			offGain.add(offDelta);
			wheelGain.add(wheelDelta);
			offBetter += (offDelta > 0) ? 1 : 0;
			wheelBetter += (wheelDelta > 0) ? 1 : 0;
		}
		double closed = Spread.of(wheelGain).median() / Spread.of(offGain).median();
		return new PairedGap(rounds, offGain, wheelGain, closed, offBetter, wheelBetter,
				SignTest.p(offBetter, rounds.size()));
	}

	/**
	 * Return whether {@code off} did better than {@code netty} in enough rounds to rule
	 * out chance (sign test, one-sided, at most 12.5%: all of 3 rounds, 5 of 6).
	 * @return whether the gap is resolved
	 */
	boolean resolved() {
		return this.rounds.size() >= 3 && this.signTestP <= 0.125;
	}

}
