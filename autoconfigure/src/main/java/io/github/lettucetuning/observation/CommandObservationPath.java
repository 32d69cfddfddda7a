package io.github.lettucetuning.observation;

import java.util.Locale;

import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.tracing.Tracing;

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
	 * Return the path that built client resources take, with this one as the decision
	 * made from the application's beans and properties. The resources have the last word:
	 * an application's customizer may have set a tracing of its own, and resources the
	 * application built itself carry neither the starter's meters nor Spring Boot's
	 * tracing.
	 * @param resources the client resources the connections use
	 * @return the path in use
	 */
	public CommandObservationPath inUse(ClientResources resources) {
		if (CompositeNettyCustomizer.find(resources.nettyCustomizer(), CommandMeters.class) != null) {
			return this;
		}
		Tracing tracing = resources.tracing();
		if (tracing.isEnabled()) {
			// Spring Boot's tracing is the guarded one; on the fast path Boot sets none
			if (this.path == Path.BOOT_OBSERVATION && tracing instanceof GuardedTracing) {
				return this;
			}
			String instead = switch (this.path) {
				case FAST_PATH -> ", so lettuce-tuning's fast path stands aside and each command is counted once";
				case BOOT_OBSERVATION -> ", in place of Spring Boot's (which would have applied: " + this.reason + ")";
				case NONE, APPLICATION_TRACING -> "";
			};
			return new CommandObservationPath(Path.APPLICATION_TRACING,
					"a ClientResourcesBuilderCustomizer of the application sets Lettuce's tracing ("
							+ tracing.getClass().getName() + "): its observations record the commands" + instead);
		}
		if (this.path == Path.NONE) {
			return this;
		}
		return new CommandObservationPath(Path.NONE,
				"the client resources carry neither lettuce-tuning's command meters nor a tracing (the application "
						+ "built its own ClientResources, or a customizer of its set a disabled tracing), although "
						+ this.path.name().toLowerCase(Locale.ROOT).replace('_', '-') + " would apply: " + this.reason);
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
		 * The tracing an application's customizer sets on the client resources records
		 * the commands; the starter's fast path stands aside.
		 */
		APPLICATION_TRACING,

		/**
		 * Nothing observes commands.
		 */
		NONE

	}

}
