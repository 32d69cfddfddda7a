package io.github.lettucetuning.autoconfigure.resources;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.github.lettucetuning.autoconfigure.socket.NettyCustomizerContribution;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.lettuce.core.tracing.Tracing;
import org.jspecify.annotations.Nullable;

/**
 * Shares the client resources' one Netty customizer between the application and
 * lettuce-tuning. On Lettuce's builder, a {@code ClientResourcesBuilderCustomizer} that
 * calls {@code nettyCustomizer(...)} replaces what was set before, or is replaced by what
 * is set after: the application's handler, or lettuce-tuning's command meters, outage
 * guard and flush consolidation, would vanish.
 * <p>
 * So every customizer is handed a builder that forwards each call to Lettuce's, except
 * {@code nettyCustomizer(...)}, which it records (the last one wins, as on Lettuce's
 * builder), and it notes the tracing the customizers leave. Once they have all run, the
 * slot gets the recorded customizer followed by lettuce-tuning's contributions: both run
 * for every bootstrap and every channel, whatever the customizers' order, and the
 * handlers lettuce-tuning adds stay at the tail of each pipeline, after the
 * application's. Only building the resources goes through the forwarding builder; no
 * command does.
 */
// Works around ClientResources holding a single Netty customizer:
// docs/upstream.md#one-netty-customizer-slot
final class NettyCustomizerComposition {

	private final ClientResources.Builder builder;

	private final ClientResources.Builder forwarding;

	private @Nullable NettyCustomizer application;

	private Tracing tracing = Tracing.disabled();

	NettyCustomizerComposition(ClientResources.Builder builder) {
		this.builder = builder;
		this.forwarding = (ClientResources.Builder) Proxy.newProxyInstance(
				NettyCustomizerComposition.class.getClassLoader(), new Class<?>[] { ClientResources.Builder.class },
				(proxy, method, args) -> forward(proxy, method, args));
	}

	/**
	 * Return the builder to hand every {@code ClientResourcesBuilderCustomizer}.
	 * @return the forwarding builder
	 */
	ClientResources.Builder builder() {
		return this.forwarding;
	}

	/**
	 * Put the recorded customizer and the contributions into the builder's slot, or leave
	 * it alone when there is neither.
	 * @param contributions lettuce-tuning's contributions, in order
	 */
	void compose(Stream<NettyCustomizerContribution> contributions) {
		List<NettyCustomizer> customizers = new ArrayList<>();
		contributions.forEach((contribution) -> {
			NettyCustomizer customizer = contribution.customizer(this.tracing);
			if (customizer != null) {
				customizers.add(customizer);
			}
		});
		NettyCustomizer composite = CompositeNettyCustomizer.of(this.application, customizers);
		if (composite != null) {
			this.builder.nettyCustomizer(composite);
		}
	}

	private @Nullable Object forward(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
		if (args != null && args.length == 1 && method.getDeclaringClass() == ClientResources.Builder.class) {
			if ("nettyCustomizer".equals(method.getName())) {
				if (args[0] == null) {
					throw new IllegalArgumentException("NettyCustomizer must not be null");
				}
				this.application = (NettyCustomizer) args[0];
				return proxy;
			}
			if ("tracing".equals(method.getName()) && args[0] instanceof Tracing tracing) {
				this.tracing = tracing;
			}
		}
		try {
			Object result = method.invoke(this.builder, args);
			return (result == this.builder) ? proxy : result;
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

}
