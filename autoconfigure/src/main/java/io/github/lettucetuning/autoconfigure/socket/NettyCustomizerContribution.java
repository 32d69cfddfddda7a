package io.github.lettucetuning.autoconfigure.socket;

import io.lettuce.core.resource.NettyCustomizer;
import org.jspecify.annotations.Nullable;

/**
 * A Netty customizer lettuce-tuning puts on the client resources. Lettuce has one slot
 * for it, so the contributions are combined, in bean order, into one
 * {@link io.github.lettucetuning.socket.CompositeNettyCustomizer} by a single
 * {@code ClientResourcesBuilderCustomizer}.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface NettyCustomizerContribution {

	/**
	 * Return the customizer, decided when the client resources are built.
	 * @return the customizer, or {@code null} if it does not apply to this application
	 */
	@Nullable NettyCustomizer customizer();

}
