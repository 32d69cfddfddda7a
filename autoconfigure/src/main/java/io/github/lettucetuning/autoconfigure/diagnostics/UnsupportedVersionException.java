package io.github.lettucetuning.autoconfigure.diagnostics;

/**
 * Thrown at startup when the application runs a Spring Boot or a Lettuce older than the
 * one lettuce-tuning is built on. Carries what the failure analysis reports.
 *
 * @since 0.1.0
 */
public class UnsupportedVersionException extends RuntimeException {

	private final String action;

	/**
	 * Create a new exception.
	 * @param message what is required and what was found, e.g. "lettuce-tuning requires
	 * Spring Boot 4.1 or later, and this application runs Spring Boot 4.0.7"
	 * @param action how to fix the build
	 */
	public UnsupportedVersionException(String message, String action) {
		super(message);
		this.action = action;
	}

	public String getAction() {
		return this.action;
	}

}
