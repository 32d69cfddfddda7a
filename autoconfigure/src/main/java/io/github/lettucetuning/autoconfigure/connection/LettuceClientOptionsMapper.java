package io.github.lettucetuning.autoconfigure.connection;

import io.github.lettucetuning.socket.CurrentSslMaterial;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslManagerBundle;

/**
 * Turns {@code spring.data.redis.*} into Lettuce's {@link ClientOptions}, then lets every
 * {@link LettuceClientOptionsBuilderCustomizer} adjust them: the starter's own tuning
 * (keep-alive, cluster triggers) arrives that way, as does the application's.
 */
// Works around Boot building cluster options only for spring.data.redis.cluster.*:
// docs/upstream.md#cluster-options-however-the-cluster-is-defined
final class LettuceClientOptionsMapper {

	private final DataRedisProperties properties;

	private final @Nullable SslBundle sslBundle;

	private final @Nullable CurrentSslMaterial sslMaterial;

	/**
	 * Create a mapper.
	 * @param properties Boot's Redis properties
	 * @param sslBundle the bundle of Boot's connection details, if SSL is on
	 * @param sslMaterial the bundle's material as it is now, when the bundle is followed
	 * across reloads, else {@code null}: connections then keep the managers the bundle
	 * had at startup, as with Spring Boot
	 */
	LettuceClientOptionsMapper(DataRedisProperties properties, @Nullable SslBundle sslBundle,
			@Nullable CurrentSslMaterial sslMaterial) {
		this.properties = properties;
		this.sslBundle = sslBundle;
		this.sslMaterial = sslMaterial;
	}

	/**
	 * Build the options.
	 * @param cluster whether the factory connects to a cluster. Unlike Spring Boot, which
	 * builds cluster options only when {@code spring.data.redis.cluster.*} is set, a
	 * cluster gets them however it was defined: by properties, connection details or a
	 * configuration bean.
	 * @param customizers the options customizers, applied in order
	 * @return the options
	 */
	ClientOptions map(boolean cluster, ObjectProvider<LettuceClientOptionsBuilderCustomizer> customizers) {
		ClientOptions.Builder builder = cluster
				? ClusterClientOptions.builder().topologyRefreshOptions(topologyRefresh()) : ClientOptions.builder();
		PropertyMapper map = PropertyMapper.get();
		// Only a set connect timeout replaces Lettuce's socket options.
		map.from(this.properties::getConnectTimeout)
			.as((timeout) -> SocketOptions.builder().connectTimeout(timeout).build())
			.to(builder::socketOptions);
		map.from(this.sslBundle).as(this::sslOptions).to(builder::sslOptions);
		// Commands expire after the command timeout instead of waiting for a reply
		// forever.
		builder.timeoutOptions(TimeoutOptions.enabled());
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	private ClusterTopologyRefreshOptions topologyRefresh() {
		DataRedisProperties.Lettuce.Cluster.Refresh refresh = this.properties.getLettuce().getCluster().getRefresh();
		ClusterTopologyRefreshOptions.Builder builder = ClusterTopologyRefreshOptions.builder()
			.dynamicRefreshSources(refresh.isDynamicRefreshSources());
		PropertyMapper.get().from(refresh::getPeriod).to(builder::enablePeriodicRefresh);
		return builder.build();
	}

	private SslOptions sslOptions(SslBundle bundle) {
		SslManagerBundle managers = bundle.getManagers();
		SslOptions.Builder builder = SslOptions.builder()
			.keyManager(managers.getKeyManagerFactory())
			.trustManager(managers.getTrustManagerFactory());
		PropertyMapper map = PropertyMapper.get();
		map.from(bundle.getOptions().getCiphers()).to(builder::cipherSuites);
		map.from(bundle.getOptions().getEnabledProtocols()).to(builder::protocols);
		// Lettuce applies this per connection, after the managers above: each new
		// connection gets the bundle's managers as they are then.
		map.from(this.sslMaterial).to(builder::sslContext);
		return builder.build();
	}

}
