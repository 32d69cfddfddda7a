package io.github.lettucetuning.autoconfigure.diagnostics;

import org.jspecify.annotations.Nullable;

/**
 * Thrown at startup when a setting cannot work for a reason other than its own value: a
 * mode whose library is missing, a mode another property switches off, or a transport
 * this platform does not offer. Carries what the failure analysis reports, whose action
 * names the fix. A value that is wrong on its own fails with Spring Boot's
 * {@link org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException}
 * instead.
 *
 * @since 0.1.0
 */
public class InvalidTuningPropertyException extends RuntimeException {

	private final String property;

	private final @Nullable Object value;

	private final String reason;

	private final String action;

	/**
	 * Create a new exception.
	 * @param property the full name of the property, e.g.
	 * {@code lettuce.tuning.connection.mode}
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
