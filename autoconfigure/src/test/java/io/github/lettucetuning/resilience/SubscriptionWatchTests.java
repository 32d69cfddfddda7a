package io.github.lettucetuning.resilience;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link SubscriptionWatch} that need no server; what it reports after a
 * reconnect is checked against a real one in {@link SubscriptionWatchIntegrationTests}.
 */
class SubscriptionWatchTests {

	@Test
	void defaultRestoreTimeoutIsFiveSeconds() {
		assertThat(new SubscriptionWatch().restoreTimeout()).isEqualTo(Duration.ofSeconds(5))
			.isEqualTo(SubscriptionWatch.DEFAULT_RESTORE_TIMEOUT);
	}

	@Test
	void restoreTimeoutMustBePositive() {
		assertThatIllegalArgumentException().isThrownBy(() -> new SubscriptionWatch(Duration.ZERO))
			.withMessageContaining("PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> new SubscriptionWatch(Duration.ofMillis(-1)))
			.withMessageContaining("PT-0.001S");
	}

	@Test
	void newWatchFollowsNothingAndReportsNothing() {
		SubscriptionWatch watch = new SubscriptionWatch(Duration.ofMillis(100));
		assertThat(watch.connections()).isZero();
		assertThat(watch.lost()).isZero();
		assertThat(watch.unrestored()).isEmpty();
	}

}
