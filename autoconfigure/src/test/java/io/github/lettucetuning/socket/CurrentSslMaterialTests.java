package io.github.lettucetuning.socket;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

import io.netty.handler.ssl.SslContextBuilder;
import org.junit.jupiter.api.Test;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslManagerBundle;
import org.springframework.boot.ssl.SslStoreBundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link CurrentSslMaterial}.
 */
class CurrentSslMaterialTests {

	@Test
	void newVersionIsTaken() throws Exception {
		CurrentSslMaterial material = new CurrentSslMaterial("redis", SslBundle.of(SslStoreBundle.NONE));
		material.update(SslBundle.of(SslStoreBundle.NONE));
		assertThat(material.updates()).isOne();
		assertThat(material.lastUpdate()).isNotNull();
		SslContextBuilder builder = SslContextBuilder.forClient();
		material.accept(builder);
		assertThat(builder.build().isClient()).isTrue();
	}

	@Test
	void unusableVersionKeepsThePreviousMaterial() {
		CurrentSslMaterial material = new CurrentSslMaterial("redis", SslBundle.of(SslStoreBundle.NONE));
		material.update(SslBundle.of(null, null, null, null, new BrokenManagers()));
		assertThat(material.updates()).isZero();
		assertThat(material.lastUpdate()).isNull();
	}

	@Test
	void unusableBundleAtStartupFailsAtOnce() {
		assertThatIllegalStateException().isThrownBy(
				() -> new CurrentSslMaterial("redis", SslBundle.of(null, null, null, null, new BrokenManagers())));
	}

	private static final class BrokenManagers implements SslManagerBundle {

		@Override
		public KeyManagerFactory getKeyManagerFactory() {
			throw new IllegalStateException("the private key does not match the certificate");
		}

		@Override
		public TrustManagerFactory getTrustManagerFactory() {
			throw new IllegalStateException("no certificate");
		}

	}

}
