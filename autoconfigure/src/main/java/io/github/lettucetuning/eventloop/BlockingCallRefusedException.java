package io.github.lettucetuning.eventloop;

import org.springframework.dao.InvalidDataAccessApiUsageException;

/**
 * A synchronous Redis call refused on an event loop of the client because it could never
 * complete there: its command would go out through the calling loop, which alone reads
 * the reply it waits for. Nothing was sent.
 *
 * @since 0.2.0
 */
public class BlockingCallRefusedException extends InvalidDataAccessApiUsageException {

	/**
	 * Create an exception.
	 * @param message what was refused, where, and the fix
	 */
	public BlockingCallRefusedException(String message) {
		super(message);
	}

}
