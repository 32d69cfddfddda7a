package io.github.lettucetuning.benchmarks.report;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Tests for {@link PairedRatio} and {@link SignTest}.
 *
 * @author lettuce-tuning
 */
class PairedRatioTests {

	@Test
	void pairsOnlyRoundsThatHoldBothSetups() {
		PairedRatio paired = PairedRatio.of(Map.of(0, 90.0, 2, 110.0, 3, 60.0), Map.of(0, 100.0, 2, 100.0, 4, 50.0));
		assertThat(paired.rounds()).containsExactly(0, 2);
		assertThat(paired.ratios()).containsExactly(0.9, 1.1);
		assertThat(paired.decides()).isFalse();
	}

	@Test
	void readsTheMedianRatioWhereTheLevelOfRoundsDrifts() {
		// Both setups move with the machine from round to round; the first stays 5% ahead.
		PairedRatio paired = PairedRatio.of(Map.of(1, 63.0, 2, 105.0, 3, 84.0, 4, 71.4),
				Map.of(1, 60.0, 2, 100.0, 3, 80.0, 4, 68.0));
		assertThat(paired.median()).isCloseTo(1.05, within(1e-9));
		assertThat(paired.wins()).isEqualTo(4);
		assertThat(paired.decides()).isTrue();
		assertThat(paired.signTestP()).isCloseTo(1.0 / 16, within(1e-12));
	}

	@Test
	void countsATieAsNoWin() {
		PairedRatio paired = PairedRatio.of(Map.of(1, 50.0, 2, 40.0, 3, 70.0), Map.of(1, 50.0, 2, 50.0, 3, 60.0));
		assertThat(paired.wins()).isEqualTo(1);
		assertThat(paired.median()).isEqualTo(1.0);
	}

	@Test
	void skipsRoundsWithoutAMeasurement() {
		PairedRatio paired = PairedRatio.of(Map.of(1, Double.NaN, 2, 40.0), Map.of(1, 50.0, 2, 0.0));
		assertThat(paired.rounds()).isEmpty();
		assertThat(paired.median()).isNaN();
	}

	@Test
	void signTestGivesTheChanceOfAsManyWinsByCoinTosses() {
		assertThat(SignTest.p(0, 5)).isEqualTo(1.0);
		assertThat(SignTest.p(3, 3)).isEqualTo(0.125);
		assertThat(SignTest.p(5, 6)).isCloseTo(7.0 / 64, within(1e-12));
		assertThat(SignTest.p(4, 8)).isCloseTo(163.0 / 256, within(1e-12));
	}

}
