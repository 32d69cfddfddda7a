package io.github.lettucetuning.testsupport.fault;

/**
 * An injected fault that can be healed. Closing heals it, so a try-with-resources block
 * bounds the fault even when the test fails inside it. Healing twice is harmless.
 */
public interface Fault extends AutoCloseable {

	/**
	 * Undo the fault.
	 */
	void heal();

	@Override
	default void close() {
		heal();
	}

}
