package io.github.lettucetuning.benchmarks.report;

/**
 * The one-sided sign test: how likely a setup wins at least {@code k} of {@code n} paired
 * rounds when it is in truth no better than the other, each round then a coin toss.
 *
 * @author lettuce-tuning
 */
final class SignTest {

	private SignTest() {
	}

	/**
	 * Return P(X >= wins) for X ~ Binomial(rounds, 1/2).
	 * @param wins the rounds won
	 * @param rounds the rounds
	 * @return the probability
	 */
	static double p(int wins, int rounds) {
		double p = 0;
		for (int i = wins; i <= rounds; i++) {
			p += binomial(rounds, i);
		}
		return p / Math.pow(2, rounds);
	}

	private static double binomial(int n, int k) {
		double result = 1;
		for (int i = 1; i <= k; i++) {
			result = result * (n - k + i) / i;
		}
		return result;
	}

}
