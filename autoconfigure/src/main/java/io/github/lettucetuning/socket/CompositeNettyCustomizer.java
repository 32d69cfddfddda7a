package io.github.lettucetuning.socket;

import java.util.List;

import io.lettuce.core.resource.NettyCustomizer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import org.jspecify.annotations.Nullable;

/**
 * Several {@link NettyCustomizer}s in the one slot {@code ClientResources} has for them,
 * called in order.
 *
 * @since 0.1.0
 */
public final class CompositeNettyCustomizer implements NettyCustomizer {

	private final List<NettyCustomizer> customizers;

	private CompositeNettyCustomizer(List<NettyCustomizer> customizers) {
		this.customizers = List.copyOf(customizers);
	}

	/**
	 * Return one customizer for several.
	 * @param customizers the customizers, in the order to call them
	 * @return the only one, or a composite of them all
	 */
	public static NettyCustomizer of(List<NettyCustomizer> customizers) {
		return (customizers.size() == 1) ? customizers.get(0) : new CompositeNettyCustomizer(customizers);
	}

	/**
	 * Return whether an installed customizer is, or holds, another.
	 * @param installed the customizer of the client resources
	 * @param customizer the customizer to look for
	 * @return whether it takes part
	 */
	public static boolean includes(NettyCustomizer installed, NettyCustomizer customizer) {
		return parts(installed).contains(customizer);
	}

	/**
	 * Return the installed customizer of a type, itself or one it holds.
	 * @param <T> the type
	 * @param installed the customizer of the client resources
	 * @param type the type to look for
	 * @return the first customizer of that type, or {@code null} if there is none
	 */
	public static <T extends NettyCustomizer> @Nullable T find(NettyCustomizer installed, Class<T> type) {
		for (NettyCustomizer candidate : parts(installed)) {
			if (type.isInstance(candidate)) {
				return type.cast(candidate);
			}
		}
		return null;
	}

	private static List<NettyCustomizer> parts(NettyCustomizer installed) {
		return (installed instanceof CompositeNettyCustomizer composite) ? composite.customizers : List.of(installed);
	}

	@Override
	public void afterBootstrapInitialized(Bootstrap bootstrap) {
		for (NettyCustomizer customizer : this.customizers) {
			customizer.afterBootstrapInitialized(bootstrap);
		}
	}

	@Override
	public void afterChannelInitialized(Channel channel) {
		for (NettyCustomizer customizer : this.customizers) {
			customizer.afterChannelInitialized(channel);
		}
	}

}
