package io.github.lettucetuning.autoconfigure;

/**
 * The order of the customizers of Lettuce's builders that lettuce-tuning contributes.
 * <p>
 * An application customizer that must run before lettuce-tuning's, so that the starter's
 * choice wins, is ordered {@code CustomizerOrder.LETTUCE_TUNING - 1}.
 *
 * @since 0.1.0
 */
// Sits apart from LettuceTuningAutoConfiguration, which imports the feature packages'
// configurations: a constant there that those configurations read would point them back
// at
// their importer, a cycle that bytecode hides because javac inlines constants
// (ArchitectureTests.wiringPackagesAreFreeOfCycles and
// entryAutoConfigurationHasNothingToPointBackTo).
public final class CustomizerOrder {

	/**
	 * The order of every customizer of Lettuce's builders that lettuce-tuning contributes
	 * (client resources, client options, socket options, Netty): early, so that
	 * customizers without an order, the usual case for the user's, run after them and
	 * have the last word.
	 */
	public static final int LETTUCE_TUNING = 0;

	private CustomizerOrder() {
	}

}
