package io.github.lettucetuning.autoconfigure.connection;

import java.time.Duration;
import java.util.Locale;
import java.util.stream.Stream;

import io.github.lettucetuning.socket.CurrentSslMaterial;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.util.StringUtils;

/**
 * Turns {@code spring.data.redis.*} into the {@link LettuceClientConfiguration} Spring
 * Boot's own factory would get, so that the starter honours every Boot property with
 * Boot's meaning. Two additions: without a client name the application's name is used,
 * and new connections use an SSL bundle's material as it is when they open, where Boot's
 * keep the material of startup after the bundle was reloaded. The application's
 * customizers run after the mapping, configuration customizers last, so that its code
 * overrides any mapped value. {@code BootMappingParityTests} holds the result against
 * Boot's.
 */
// Works around Boot's mapping from properties to the client configuration being
// package-private:
// docs/upstream.md#boots-connection-mapping-re-implemented
final class LettuceClientConfigurationMapper {

	private final DataRedisProperties properties;

	private final @Nullable SslBundle sslBundle;

	private final @Nullable CurrentSslMaterial sslMaterial;

	private final @Nullable String applicationName;

	/**
	 * Create a mapper whose connections keep the SSL bundle's material of startup, as
	 * Spring Boot's do.
	 * @param properties Boot's Redis properties
	 * @param sslBundle the bundle of Boot's connection details, if SSL is on
	 * @param applicationName {@code spring.application.name}, the fallback client name
	 */
	LettuceClientConfigurationMapper(DataRedisProperties properties, @Nullable SslBundle sslBundle,
			@Nullable String applicationName) {
		this(properties, sslBundle, null, applicationName);
	}

	/**
	 * Create a mapper.
	 * @param properties Boot's Redis properties
	 * @param sslBundle the bundle of Boot's connection details, if SSL is on
	 * @param sslMaterial the bundle's material as it is now, when the bundle is followed
	 * across reloads
	 * @param applicationName {@code spring.application.name}, the fallback client name
	 */
	LettuceClientConfigurationMapper(DataRedisProperties properties, @Nullable SslBundle sslBundle,
			@Nullable CurrentSslMaterial sslMaterial, @Nullable String applicationName) {
		this.properties = properties;
		this.sslBundle = sslBundle;
		this.sslMaterial = sslMaterial;
		this.applicationName = applicationName;
	}

	LettuceClientConfiguration map(boolean cluster, ClientResources clientResources,
			ObjectProvider<LettuceClientOptionsBuilderCustomizer> optionsCustomizers,
			ObjectProvider<LettuceClientConfigurationBuilderCustomizer> configurationCustomizers) {
		LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder();
		DataRedisProperties.Lettuce lettuce = this.properties.getLettuce();
		PropertyMapper map = PropertyMapper.get();
		map.from(this.properties::getTimeout).to(builder::commandTimeout);
		// Zero means "keep Spring Data's default", not "do not wait".
		map.from(lettuce::getShutdownTimeout).whenNot(Duration::isZero).to(builder::shutdownTimeout);
		map.from(lettuce::getReadFrom).as(LettuceClientConfigurationMapper::readFrom).to(builder::readFrom);
		map.from(this::clientName).to(builder::clientName);
		if (usesSsl()) {
			builder.useSsl();
		}
		builder.clientOptions(new LettuceClientOptionsMapper(this.properties, this.sslBundle, this.sslMaterial)
			.map(cluster, optionsCustomizers));
		builder.clientResources(clientResources);
		configurationCustomizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	// The application's name makes its connections easy to find with CLIENT LIST.
	private @Nullable String clientName() {
		return Stream.of(this.properties.getClientName(), this.applicationName)
			.filter(StringUtils::hasText)
			.findFirst()
			.orElse(null);
	}

	// A bundle means SSL; so does a rediss:// URL, which may come without one.
	private boolean usesSsl() {
		String url = this.properties.getUrl();
		return this.sslBundle != null || (url != null && url.startsWith("rediss://"));
	}

	/**
	 * Parse a {@code read-from} value as Boot documents it: the setting's name in any
	 * spelling ({@code any-replica}, {@code anyReplica}), followed for {@code regex} and
	 * {@code subnet} by a colon and an argument that is kept as written.
	 * @param value the property value
	 * @return Lettuce's read-from setting
	 */
	static ReadFrom readFrom(String value) {
		String[] nameAndArgument = value.split(":", 2);
		String name = nameAndArgument[0].replaceAll("[^A-Za-z0-9]", "").toLowerCase(Locale.ROOT);
		return ReadFrom.valueOf((nameAndArgument.length == 1) ? name : name + ":" + nameAndArgument[1]);
	}

}
