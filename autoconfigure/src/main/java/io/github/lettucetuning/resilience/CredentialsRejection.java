package io.github.lettucetuning.resilience;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Tells a handshake that the server refused for its credentials from one that failed
 * otherwise, and words it for the caller. Only Redis' reply and the user name go into the
 * words: a password is in neither.
 */
final class CredentialsRejection {

	// WRONGPASS: unknown user or wrong password; NOAUTH: none sent where one is required;
	// NOPERM: the user may not run a command of the handshake.
	private static final List<String> CODES = List.of("WRONGPASS", "NOAUTH", "NOPERM");

	private static final int MAX_REPLY_LENGTH = 160;

	private CredentialsRejection() {
	}

	/**
	 * Describe a handshake failure that is a rejection of the credentials.
	 * @param failure the failure of a handshake command
	 * @param user the user the client authenticates as, if known
	 * @return the description, or {@code null} if the server did not refuse the
	 * credentials
	 */
	static @Nullable String describe(Throwable failure, @Nullable String user) {
		String reply = failure.getMessage();
		if (reply == null || CODES.stream().noneMatch(reply::startsWith)) {
			return null;
		}
		String line = reply.lines().findFirst().orElse(reply);
		if (line.length() > MAX_REPLY_LENGTH) {
			line = line.substring(0, MAX_REPLY_LENGTH) + "...";
		}
		String credentials = (user != null) ? "the credentials of user '" + user + "'"
				: "a connection without credentials";
		return "refuses " + credentials + " (" + line + ")";
	}

}
