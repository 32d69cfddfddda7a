package io.github.lettucetuning.credentials;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link CredentialsTracker}.
 */
class CredentialsTrackerTests {

	private static final Instant NOW = Instant.parse("2026-11-26T06:00:00Z");

	private final CredentialsTracker tracker = new CredentialsTracker(null, "test", Clock.fixed(NOW, ZoneOffset.UTC));

	@Test
	void resolvedCredentialsAreTrackedByUserOnly() {
		RedisCredentialsProvider tracked = this.tracker.track(() -> Mono.just(RedisCredentials.just("app", "s3cret")));
		assertThat(this.tracker.user()).isNull();
		assertThat(tracked.resolveCredentials().block().getUsername()).isEqualTo("app");
		assertThat(this.tracker.user()).isEqualTo("app");
		assertThat(this.tracker.issuedAt()).isEqualTo(NOW);
		assertThat(this.tracker.streaming()).isFalse();
		assertThat(tracked.supportsStreaming()).isFalse();
	}

	@Test
	void streamedCredentialsAreTracked() {
		RotatingCredentials rotating = new RotatingCredentials("first", "one");
		RedisCredentialsProvider tracked = this.tracker.track(rotating);
		assertThat(tracked.supportsStreaming()).isTrue();
		assertThat(this.tracker.streaming()).isTrue();
		assertThat(tracked.credentials().blockFirst().getUsername()).isEqualTo("first");
		rotating.rotate("second", "two");
		assertThat(tracked.credentials().blockFirst().getUsername()).isEqualTo("second");
		assertThat(this.tracker.user()).isEqualTo("second");
	}

	@Test
	void passwordAloneIsTheDefaultUsers() {
		assertThat(CredentialsTracker.userOf(RedisCredentials.just(null, "s3cret"))).isEqualTo("default");
		assertThat(CredentialsTracker.userOf(RedisCredentials.just(null, (char[]) null))).isNull();
	}

	@Test
	void configuredUserStandsUntilAProviderIssuesOne() {
		assertThat(new CredentialsTracker("app", null).user()).isEqualTo("app");
	}

}
