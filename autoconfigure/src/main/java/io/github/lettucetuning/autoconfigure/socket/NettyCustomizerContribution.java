package io.github.lettucetuning.autoconfigure.socket;

import io.lettuce.core.resource.NettyCustomizer;
import io.lettuce.core.tracing.Tracing;
import org.jspecify.annotations.Nullable;

/**
 * A Netty customizer lettuce-tuning puts on the client resources. Lettuce has one slot
 * for it, so once every {@code ClientResourcesBuilderCustomizer} has run, the
 * contributions are combined, in bean order and after the Netty customizer the
 * application set (if any), into one
 * {@link io.github.lettucetuning.socket.CompositeNettyCustomizer}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface NettyCustomizerContribution {

	/**
	 * Return the customizer, decided when the client resources are built.
	 * @param tracing the tracing the client resources are built with, as the customizers
	 * left it ({@code Tracing.disabled()} when none set one)
	 * @return the customizer, or {@code null} if it does not apply to this application
	 */
	@Nullable NettyCustomizer customizer(Tracing tracing);

}
