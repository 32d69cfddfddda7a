package io.github.lettucetuning.benchmarks.support;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link IterationRecorder}'s count of the commands clients sent.
 */
class IterationRecorderTests {

	@Test
	void countsSetsGetsAndMgetsAsSentWithoutScripts() {
		assertThat(IterationRecorder.commandsSent(10, 20, 3, 0, 0)).isEqualTo(33);
	}

	@Test
	void countsTheGetOfEachNearCacheScriptOnce() {
		// 5 EVALs, each running one GET that Redis counts too, beside 7 GETs sent
		assertThat(IterationRecorder.commandsSent(0, 12, 0, 5, 0)).isEqualTo(12);
	}

	@Test
	void countsEvictions() {
		assertThat(IterationRecorder.commandsSent(4, 0, 0, 0, 6)).isEqualTo(10);
	}

}
