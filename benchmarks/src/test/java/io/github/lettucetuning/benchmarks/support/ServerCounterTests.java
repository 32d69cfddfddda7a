package io.github.lettucetuning.benchmarks.support;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ServerCounter}'s reading of {@code INFO commandstats}.
 */
class ServerCounterTests {

	@Test
	void readsTheCallsOfACommand() {
		assertThat(ServerCounter.calls("calls=123,usec=456,usec_per_call=3.70,rejected_calls=0,failed_calls=0"))
			.isEqualTo(123);
	}

	@Test
	void countsNoCallsOfACommandTheServerHasNotRun() {
		assertThat(ServerCounter.calls(null)).isZero();
		assertThat(ServerCounter.calls("usec=0")).isZero();
	}

}
