package io.github.lettucetuning.testsupport.server;

/**
 * An error reply ({@code -ERR ...}) sent by a Redis server.
 */
public class RespErrorException extends RuntimeException {

	public RespErrorException(String message) {
		super(message);
	}

	/**
	 * Return the error code, the first word of the error reply (for example {@code ERR},
	 * {@code MOVED} or {@code NOGOODSLAVE}).
	 * @return the error code
	 */
	public String errorCode() {
		String message = getMessage();
		int space = message.indexOf(' ');
		return (space < 0) ? message : message.substring(0, space);
	}

	@Override
	public String getMessage() {
		String message = super.getMessage();
		return (message != null) ? message : "";
	}

}
