package io.github.lettucetuning.autoconfigure.connection;

import io.github.lettucetuning.socket.CurrentSslMaterial;
import org.junit.jupiter.api.Test;

import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.ssl.DefaultSslBundleRegistry;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslStoreBundle;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SslBundleReloads}.
 */
class SslBundleReloadsTests {

	private final DefaultSslBundleRegistry registry = new DefaultSslBundleRegistry("redis",
			SslBundle.of(SslStoreBundle.NONE));

	private final DataRedisProperties properties = new DataRedisProperties();

	@Test
	void namedBundleIsFollowedAcrossReloads() {
		this.properties.getSsl().setBundle("redis");
		CurrentSslMaterial material = SslBundleReloads.follow(this.properties, this.registry,
				this.registry.getBundle("redis"));
		assertThat(material).isNotNull();
		assertThat(material.bundleName()).isEqualTo("redis");
		assertThat(material.updates()).isZero();
		assertThat(material.lastUpdate()).isNull();
		this.registry.updateBundle("redis", SslBundle.of(SslStoreBundle.NONE));
		assertThat(material.updates()).isOne();
		assertThat(material.lastUpdate()).isNotNull();
	}

	@Test
	void bundleOfTheApplicationsConnectionDetailsIsNotFollowed() {
		this.properties.getSsl().setBundle("redis");
		assertThat(SslBundleReloads.follow(this.properties, this.registry, SslBundle.of(SslStoreBundle.NONE))).isNull();
	}

	@Test
	void noBundleIsFollowedWithoutSslOrAName() {
		assertThat(SslBundleReloads.follow(this.properties, this.registry, SslBundle.systemDefault())).isNull();
		this.properties.getSsl().setEnabled(true);
		assertThat(SslBundleReloads.follow(this.properties, this.registry, SslBundle.systemDefault())).isNull();
		this.properties.getSsl().setBundle("redis");
		this.properties.getSsl().setEnabled(false);
		assertThat(SslBundleReloads.follow(this.properties, this.registry, null)).isNull();
		this.properties.getSsl().setEnabled(true);
		assertThat(SslBundleReloads.follow(this.properties, null, this.registry.getBundle("redis"))).isNull();
	}

}
