package io.github.lettucetuning.socket;

import java.util.List;

import io.lettuce.core.resource.NettyCustomizer;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import org.jspecify.annotations.Nullable;

/**
 * Several {@link NettyCustomizer}s in the one slot {@code ClientResources} has for them,
 * called in order: the application's customizer, if any, then lettuce-tuning's parts, so
 * that the handlers lettuce-tuning adds sit after the application's, at the tail of each
 * channel's pipeline.
 *
 * @since 0.1.0
 */
public final class CompositeNettyCustomizer implements NettyCustomizer {

	private final @Nullable NettyCustomizer application;

	private final List<NettyCustomizer> customizers;

	private CompositeNettyCustomizer(@Nullable NettyCustomizer application, List<NettyCustomizer> customizers) {
		this.application = application;
		this.customizers = List.copyOf(customizers);
	}

	/**
	 * Return one customizer for several.
	 * @param customizers the customizers, in the order to call them
	 * @return the only one, or a composite of them all
	 */
	public static NettyCustomizer of(List<NettyCustomizer> customizers) {
		return (customizers.size() == 1) ? customizers.get(0) : new CompositeNettyCustomizer(null, customizers);
	}

	/**
	 * Return one customizer for the application's and lettuce-tuning's.
	 * @param application the customizer the application set, called first, or
	 * {@code null} if it set none
	 * @param customizers lettuce-tuning's customizers, in the order to call them
	 * @return a composite, the only customizer there is, or {@code null} if there is none
	 */
	public static @Nullable NettyCustomizer of(@Nullable NettyCustomizer application,
			List<NettyCustomizer> customizers) {
		if (application == null) {
			return customizers.isEmpty() ? null : of(customizers);
		}
		return new CompositeNettyCustomizer(application, customizers);
	}

	/**
	 * Return whether an installed customizer is, or holds, another of lettuce-tuning's.
	 * @param installed the customizer of the client resources
	 * @param customizer the customizer to look for
	 * @return whether it takes part
	 */
	public static boolean includes(NettyCustomizer installed, NettyCustomizer customizer) {
		return parts(installed).contains(customizer);
	}

	/**
	 * Return lettuce-tuning's installed customizer of a type, itself or one it holds.
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

	/**
	 * Return the application's customizer that an installed composite calls before
	 * lettuce-tuning's.
	 * @param installed the customizer of the client resources
	 * @return the application's customizer, or {@code null} if the installed one is not a
	 * composite holding one
	 */
	public static @Nullable NettyCustomizer application(NettyCustomizer installed) {
		return (installed instanceof CompositeNettyCustomizer composite) ? composite.application : null;
	}

	private static List<NettyCustomizer> parts(NettyCustomizer installed) {
		return (installed instanceof CompositeNettyCustomizer composite) ? composite.customizers : List.of(installed);
	}

	@Override
	public void afterBootstrapInitialized(Bootstrap bootstrap) {
		if (this.application != null) {
			this.application.afterBootstrapInitialized(bootstrap);
		}
		for (NettyCustomizer customizer : this.customizers) {
			customizer.afterBootstrapInitialized(bootstrap);
		}
	}

	@Override
	public void afterChannelInitialized(Channel channel) {
		if (this.application != null) {
			this.application.afterChannelInitialized(channel);
		}
		for (NettyCustomizer customizer : this.customizers) {
			customizer.afterChannelInitialized(channel);
		}
	}

}
