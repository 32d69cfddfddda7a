package io.github.lettucetuning.advice;

/**
 * One piece of advice about the effective configuration.
 *
 * @param id a stable identifier, e.g. {@code pool-shared-traffic}
 * @param severity {@code info}, {@code warning} or {@code error}
 * @param message what is wrong and what it costs, in one line
 * @param fix what to change, in one line, naming the property
 * @since 0.1.0
 */
public record Finding(String id, String severity, String message, String fix) {

	static Finding of(String id, Severity severity, String message, String fix) {
		return new Finding(id, severity.id(), message, fix);
	}

}
