package io.github.lettucetuning.autoconfigure.socket;

import java.util.ArrayList;
import java.util.List;

import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.NettyCustomizer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;

/**
 * Puts every {@link NettyCustomizerContribution} that applies into the client resources'
 * one Netty customizer slot, and leaves the slot alone when none does.
 */
final class NettyCustomizerRegistration implements ClientResourcesBuilderCustomizer {

	private final ObjectProvider<NettyCustomizerContribution> contributions;

	NettyCustomizerRegistration(ObjectProvider<NettyCustomizerContribution> contributions) {
		this.contributions = contributions;
	}

	@Override
	public void customize(ClientResources.Builder builder) {
		List<NettyCustomizer> customizers = new ArrayList<>();
		this.contributions.orderedStream().forEach((contribution) -> {
			NettyCustomizer customizer = contribution.customizer();
			if (customizer != null) {
				customizers.add(customizer);
			}
		});
		if (!customizers.isEmpty()) {
			builder.nettyCustomizer(CompositeNettyCustomizer.of(customizers));
		}
	}

}
