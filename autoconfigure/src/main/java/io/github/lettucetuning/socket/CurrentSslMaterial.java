package io.github.lettucetuning.socket;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

import io.netty.handler.ssl.SslContextBuilder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslManagerBundle;

/**
 * The key and trust material of an SSL bundle as it is now, handed to every connection
 * Lettuce opens.
 * <p>
 * Spring Boot rebuilds a bundle whose files change ({@code reload-on-update}) and tells
 * the bundle's update handlers; Spring Boot's own Redis configuration registers none and
 * gives Lettuce the managers the bundle had at startup, so after a rotation every new
 * connection, and every reconnect, presents the old certificate and trusts the old CA.
 * Lettuce builds an SSL context for each connection it opens, reconnects included, and
 * lets {@code SslOptions.Builder#sslContext} adjust the context builder there: this is
 * that adjustment. It sets the key and trust managers of the bundle last received, so
 * that new connections use the current material while open ones keep the session they
 * negotiated.
 * <p>
 * The managers are built once per version of the bundle, when it arrives, not once per
 * connection. A version whose managers cannot be built is logged and the previous one
 * kept: the connections that still work are better off with material that worked.
 *
 * @since 0.1.0
 */
public final class CurrentSslMaterial implements Consumer<SslContextBuilder> {

	private static final Log logger = LogFactory.getLog(CurrentSslMaterial.class);

	private final String bundleName;

	private final AtomicReference<Material> current;

	private final AtomicLong updates = new AtomicLong();

	private volatile @Nullable Instant lastUpdate;

	/**
	 * Start with the bundle as it is at startup.
	 * @param bundleName the bundle's name, for logs and failure messages
	 * @param bundle the bundle
	 */
	public CurrentSslMaterial(String bundleName, SslBundle bundle) {
		this.bundleName = bundleName;
		this.current = new AtomicReference<>(Material.of(bundle));
	}

	/**
	 * Take a new version of the bundle, as Spring Boot's update handler.
	 * @param bundle the new version
	 */
	public void update(SslBundle bundle) {
		try {
			this.current.set(Material.of(bundle));
		}
		catch (RuntimeException ex) {
			logger.warn("SSL bundle '" + this.bundleName + "' was reloaded, but its key or trust material cannot be "
					+ "used (" + ex + "); new Redis connections keep the material loaded before", ex);
			return;
		}
		this.lastUpdate = Instant.now();
		this.updates.incrementAndGet();
		logger.info("SSL bundle '" + this.bundleName + "' was reloaded: new Redis connections and reconnects use "
				+ "its new key and trust material, open connections keep theirs");
	}

	/**
	 * Set the current key and trust managers on the context builder of a connection.
	 * @param builder the builder Lettuce prepared from the SSL options
	 */
	@Override
	public void accept(SslContextBuilder builder) {
		Material material = this.current.get();
		builder.keyManager(material.keys()).trustManager(material.trust());
	}

	/**
	 * Return the name of the bundle.
	 * @return the name
	 */
	public String bundleName() {
		return this.bundleName;
	}

	/**
	 * Return how many new versions of the bundle were taken since startup.
	 * @return the updates taken
	 */
	public long updates() {
		return this.updates.get();
	}

	/**
	 * Return when the last new version of the bundle was taken.
	 * @return the time, or {@code null} if the bundle was not reloaded since startup
	 */
	public @Nullable Instant lastUpdate() {
		return this.lastUpdate;
	}

	private record Material(KeyManagerFactory keys, TrustManagerFactory trust) {

		static Material of(SslBundle bundle) {
			SslManagerBundle managers = bundle.getManagers();
			return new Material(managers.getKeyManagerFactory(), managers.getTrustManagerFactory());
		}

	}

}
