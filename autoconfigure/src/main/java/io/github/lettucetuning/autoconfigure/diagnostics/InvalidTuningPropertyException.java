package io.github.lettucetuning.autoconfigure.diagnostics;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at startup when a lettuce-tuning setting cannot work: a value out of range or a
 * mode whose library is missing. Carries what the failure analysis reports.
 *
 * @author lettuce-tuning
 * @since 0.1.0
 */
public class InvalidTuningPropertyException extends RuntimeException {

	private final String property;

	private final @Nullable Object value;

	private final String reason;

	private final String action;

	/**
	 * Create a new exception.
	 * @param property the full name of the property, e.g. {@code lettuce.tuning.connection.mode}
	 * @param value the rejected value
	 * @param reason why the value cannot work, e.g. "it must be positive"
	 * @param action how to fix the configuration
	 */
	public InvalidTuningPropertyException(String property, @Nullable Object value, String reason, String action) {
		super("Invalid value '" + value + "' for '" + property + "': " + reason);
		this.property = property;
		this.value = value;
		this.reason = reason;
		this.action = action;
	}

	public String getProperty() {
		return this.property;
	}

	public @Nullable Object getValue() {
		return this.value;
	}

	public String getReason() {
		return this.reason;
	}

	public String getAction() {
		return this.action;
	}

}
