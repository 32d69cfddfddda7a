package io.github.lettucetuning.nearcache;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link InvalidationTracking}'s choice of prefixes: Redis refuses prefixes
 * that overlap on one connection.
 */
class InvalidationTrackingTests {

	@Test
	void prefixCoveredByAnotherIsDropped() {
		assertThat(InvalidationTracking.nonOverlapping(List.of("books::", "book", "authors::", "books::")))
			.containsExactly("authors::", "book");
	}

	@Test
	void emptyPrefixTracksEveryKey() {
		assertThat(InvalidationTracking.nonOverlapping(List.of("books::", ""))).isEmpty();
	}

	@Test
	void epochsAreOddOnlyWhileTracking() {
		InvalidationTracking tracking = new InvalidationTracking(() -> null, List::of,
				new InvalidationTracking.Invalidations() {

					@Override
					public void invalidate(List<byte[]> keys) {
					}

					@Override
					public void invalidateAll() {
					}

				});
		assertThat(tracking.epoch()).isZero();
		assertThat(tracking.isTracking()).isFalse();
		assertThat(tracking.isTracking(0)).isFalse();
		tracking.close();
	}

}
