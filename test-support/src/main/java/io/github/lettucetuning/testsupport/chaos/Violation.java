package io.github.lettucetuning.testsupport.chaos;

import org.jspecify.annotations.Nullable;

/**
 * An invariant that a campaign run broke.
 *
 * @param invariant the invariant's name
 * @param detail what happened
 * @param operation the operation concerned, if one is
 */
public record Violation(String invariant, String detail, @Nullable Operation operation) {

	@Override
	public String toString() {
		return this.invariant + ": " + this.detail + ((this.operation != null) ? " [" + this.operation + "]" : "");
	}

}
