package io.github.lettucetuning.autoconfigure.connection;

import java.time.Duration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslOptions;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.util.StringUtils;

/**
 * Maps {@code spring.data.redis.*} onto a {@link LettuceClientConfiguration} in Spring
 * Boot's order: properties, then SSL and URL, then client options (with their
 * customizers), then client resources, then the configuration customizers, so that user
 * code has the last word.
 *
 * @author lettuce-tuning
 */
final class LettuceClientConfigurationMapper {

	private final DataRedisProperties properties;

	private final @Nullable SslBundle sslBundle;

	private final @Nullable String defaultClientName;

	LettuceClientConfigurationMapper(DataRedisProperties properties, @Nullable SslBundle sslBundle,
			@Nullable String defaultClientName) {
		this.properties = properties;
		this.sslBundle = sslBundle;
		this.defaultClientName = defaultClientName;
	}

	LettuceClientConfiguration map(boolean cluster, ClientResources clientResources,
			ObjectProvider<LettuceClientOptionsBuilderCustomizer> optionsCustomizers,
			ObjectProvider<LettuceClientConfigurationBuilderCustomizer> configurationCustomizers) {
		LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder();
		applyProperties(builder);
		if (this.sslBundle != null || urlUsesSsl()) {
			builder.useSsl();
		}
		builder.clientOptions(clientOptions(cluster, optionsCustomizers));
		builder.clientResources(clientResources);
		configurationCustomizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	private void applyProperties(LettuceClientConfigurationBuilder builder) {
		if (this.properties.getTimeout() != null) {
			builder.commandTimeout(this.properties.getTimeout());
		}
		Duration shutdownTimeout = this.properties.getLettuce().getShutdownTimeout();
		if (shutdownTimeout != null && !shutdownTimeout.isZero()) {
			builder.shutdownTimeout(shutdownTimeout);
		}
		String readFrom = this.properties.getLettuce().getReadFrom();
		if (readFrom != null) {
			builder.readFrom(readFrom(readFrom));
		}
		String clientName = clientName();
		if (clientName != null) {
			builder.clientName(clientName);
		}
	}

	// The application's name makes its connections easy to find with CLIENT LIST.
	private @Nullable String clientName() {
		String clientName = this.properties.getClientName();
		if (StringUtils.hasText(clientName)) {
			return clientName;
		}
		return StringUtils.hasText(this.defaultClientName) ? this.defaultClientName : null;
	}

	private boolean urlUsesSsl() {
		String url = this.properties.getUrl();
		return url != null && url.startsWith("rediss://");
	}

	static ReadFrom readFrom(String readFrom) {
		int colon = readFrom.indexOf(':');
		if (colon == -1) {
			return ReadFrom.valueOf(canonicalName(readFrom));
		}
		return ReadFrom.valueOf(canonicalName(readFrom.substring(0, colon)) + readFrom.substring(colon));
	}

	private static String canonicalName(String name) {
		StringBuilder canonical = new StringBuilder(name.length());
		name.chars()
			.filter(Character::isLetterOrDigit)
			.map(Character::toLowerCase)
			.forEach((c) -> canonical.append((char) c));
		return canonical.toString();
	}

	private ClientOptions clientOptions(boolean cluster,
			ObjectProvider<LettuceClientOptionsBuilderCustomizer> optionsCustomizers) {
		ClientOptions.Builder builder = cluster ? clusterClientOptions() : ClientOptions.builder();
		Duration connectTimeout = this.properties.getConnectTimeout();
		if (connectTimeout != null) {
			builder.socketOptions(SocketOptions.builder().connectTimeout(connectTimeout).build());
		}
		if (this.sslBundle != null) {
			builder.sslOptions(sslOptions(this.sslBundle));
		}
		builder.timeoutOptions(TimeoutOptions.enabled());
		optionsCustomizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	// Unlike Spring Boot, a cluster gets cluster options however it was defined: by
	// properties, connection details or a RedisClusterConfiguration bean.
	private ClusterClientOptions.Builder clusterClientOptions() {
		DataRedisProperties.Lettuce.Cluster.Refresh refresh = this.properties.getLettuce().getCluster().getRefresh();
		ClusterTopologyRefreshOptions.Builder refreshOptions = ClusterTopologyRefreshOptions.builder()
			.dynamicRefreshSources(refresh.isDynamicRefreshSources());
		if (refresh.getPeriod() != null) {
			refreshOptions.enablePeriodicRefresh(refresh.getPeriod());
		}
		return ClusterClientOptions.builder().topologyRefreshOptions(refreshOptions.build());
	}

	private static io.lettuce.core.SslOptions sslOptions(SslBundle bundle) {
		io.lettuce.core.SslOptions.Builder builder = io.lettuce.core.SslOptions.builder()
			.keyManager(bundle.getManagers().getKeyManagerFactory())
			.trustManager(bundle.getManagers().getTrustManagerFactory());
		SslOptions options = bundle.getOptions();
		if (options.getCiphers() != null) {
			builder.cipherSuites(options.getCiphers());
		}
		if (options.getEnabledProtocols() != null) {
			builder.protocols(options.getEnabledProtocols());
		}
		return builder.build();
	}

}
