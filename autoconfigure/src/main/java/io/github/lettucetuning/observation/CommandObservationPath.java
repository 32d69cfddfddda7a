package io.github.lettucetuning.observation;

/**
 * Which path records the {@code lettuce} command meters, and why.
 *
 * @param path the path in use
 * @param reason why that path, in words a reader of {@code /actuator/lettuce} can act on
 * @since 0.1.0
 */
public record CommandObservationPath(Path path, String reason) {

	/**
	 * Return whether the starter records the meters itself.
	 * @return whether the fast path is in use
	 */
	public boolean isFastPath() {
		return this.path == Path.FAST_PATH;
	}

	/**
	 * The paths a command's meters can take.
	 */
	public enum Path {

		/**
		 * The starter records the {@code lettuce} timer itself, without an observation
		 * per command.
		 */
		FAST_PATH,

		/**
		 * Spring Boot's {@code lettuce} observation runs, one per command.
		 */
		BOOT_OBSERVATION,

		/**
		 * Nothing observes commands.
		 */
		NONE

	}

}
