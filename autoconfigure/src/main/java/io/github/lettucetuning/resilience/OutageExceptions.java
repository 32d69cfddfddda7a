package io.github.lettucetuning.resilience;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.RedisConnectionFailureException;

/**
 * Spring's translation of the guard's exceptions. Spring Data Redis translates every
 * Lettuce connection exception into a {@link RedisConnectionFailureException} that says
 * only "Redis connection failed"; for an outage the caller is better served by the server
 * and how long it has been unreachable, so that text becomes the message.
 *
 * @since 0.1.0
 */
public final class OutageExceptions {

	private OutageExceptions() {
	}

	/**
	 * Translate a failure caused by the guard.
	 * @param failure what a Lettuce command or call threw
	 * @return the exception to throw, or {@code null} if the guard did not cause it
	 */
	public static @Nullable DataAccessException translate(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = (cause.getCause() != cause) ? cause.getCause() : null) {
			if (cause instanceof RedisUnreachableException || cause instanceof RedisStalledException) {
				return new RedisConnectionFailureException(cause.getMessage(), cause);
			}
		}
		return null;
	}

}
