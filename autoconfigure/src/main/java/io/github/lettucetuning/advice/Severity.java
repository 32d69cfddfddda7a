package io.github.lettucetuning.advice;

import java.util.Locale;

/**
 * How much a {@link Finding} matters.
 *
 * @since 0.1.0
 */
public enum Severity {

	/**
	 * Worth knowing; the setup works.
	 */
	INFO,

	/**
	 * Likely to cost throughput or availability under load or faults.
	 */
	WARNING,

	/**
	 * Works against its own purpose, e.g. a timeout the timer cannot honour.
	 */
	ERROR;

	/**
	 * Return the lower-case name used in the endpoint.
	 * @return the name
	 */
	public String id() {
		return name().toLowerCase(Locale.ROOT);
	}

}
