package io.github.lettucetuning.resilience;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link CredentialsRejection}.
 */
class CredentialsRejectionTests {

	@Test
	void wrongPasswordNamesTheUserAndTheReply() {
		assertThat(CredentialsRejection.describe(
				new RedisCommandExecutionException("WRONGPASS invalid username-password pair or user is disabled."),
				"app"))
			.isEqualTo("refuses the credentials of user 'app' "
					+ "(WRONGPASS invalid username-password pair or user is disabled.)");
	}

	@Test
	void noAuthWithoutCredentialsSaysSo() {
		assertThat(CredentialsRejection.describe(new RedisCommandExecutionException("NOAUTH Authentication required."),
				null))
			.isEqualTo("refuses a connection without credentials (NOAUTH Authentication required.)");
	}

	@Test
	void noPermIsARejection() {
		assertThat(CredentialsRejection.describe(new RedisCommandExecutionException(
				"NOPERM User app has no permissions to run the 'client|setname' command"), "app"))
			.startsWith("refuses the credentials of user 'app' (NOPERM");
	}

	@Test
	void otherFailuresAreNot() {
		assertThat(CredentialsRejection.describe(new RedisConnectionException("Connection closed"), "app")).isNull();
		assertThat(CredentialsRejection.describe(new RedisCommandExecutionException("ERR unknown command"), "app"))
			.isNull();
		assertThat(CredentialsRejection.describe(new RedisConnectionException(null), "app")).isNull();
	}

	@Test
	void longRepliesAreCut() {
		String reply = "WRONGPASS " + "x".repeat(500);
		assertThat(CredentialsRejection.describe(new RedisCommandExecutionException(reply), "app")).hasSizeLessThan(220)
			.endsWith("...)");
	}

}
