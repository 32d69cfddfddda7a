package io.github.lettucetuning.autoconfigure.socket;

import io.github.lettucetuning.socket.ClientAddressResolver;
import io.lettuce.core.resource.ClientResources;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;

/**
 * Gives the client resources a {@link ClientAddressResolver} of their own, and closes it
 * on shutdown. Lettuce's client resources do not close a resolver they are given. This
 * bean is created while the client resources are built, so Spring destroys it after them:
 * the resolver's sockets close once no connection can ask it any more.
 */
final class AddressResolverCustomizer implements ClientResourcesBuilderCustomizer, DisposableBean {

	private final ClientAddressResolver resolver;

	AddressResolverCustomizer(ClientAddressResolver resolver) {
		this.resolver = resolver;
	}

	@Override
	public void customize(ClientResources.Builder builder) {
		builder.addressResolverGroup(this.resolver.group());
	}

	ClientAddressResolver resolver() {
		return this.resolver;
	}

	@Override
	public void destroy() {
		this.resolver.close();
	}

}
