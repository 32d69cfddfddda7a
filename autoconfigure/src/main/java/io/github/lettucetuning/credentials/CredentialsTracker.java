package io.github.lettucetuning.credentials;

import java.time.Clock;
import java.time.Instant;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import org.jspecify.annotations.Nullable;

/**
 * Follows the credentials the client's data connections authenticate with: which user the
 * provider issued last, and when. It keeps the user name only; the secret never leaves
 * the provider's {@link RedisCredentials}.
 * <p>
 * A provider {@link #track(RedisCredentialsProvider) tracked} by it reports every
 * credentials it hands to Lettuce, at a connection's handshake and on each new value of a
 * streaming provider. Without a provider (credentials from
 * {@code spring.data.redis.username} and {@code password}), the configured user stands.
 *
 * @since 0.1.0
 */
public final class CredentialsTracker {

	/**
	 * The user Redis assigns to a password given without a user name.
	 */
	public static final String DEFAULT_USER = "default";

	private final Clock clock;

	private final @Nullable String source;

	private final @Nullable String reason;

	private volatile boolean streaming;

	private volatile @Nullable String user;

	private volatile @Nullable Instant issuedAt;

	/**
	 * Create a tracker.
	 * @param configuredUser the user of the static credentials, or {@code null} if the
	 * client sends none or a provider issues them
	 * @param source what supplies the credentials (a bean's type), or {@code null} for
	 * Spring Boot's properties
	 */
	public CredentialsTracker(@Nullable String configuredUser, @Nullable String source) {
		this(configuredUser, source, (String) null);
	}

	/**
	 * Create a tracker that also says why its source supplies the credentials.
	 * @param configuredUser the user of the static credentials, or {@code null} if the
	 * client sends none or a provider issues them
	 * @param source what supplies the credentials (a bean's type), or {@code null} for
	 * Spring Boot's properties
	 * @param reason why that bean supplies them, or why no bean does, or {@code null}
	 * @since 0.1.0
	 */
	public CredentialsTracker(@Nullable String configuredUser, @Nullable String source, @Nullable String reason) {
		this(configuredUser, source, reason, Clock.systemUTC());
	}

	CredentialsTracker(@Nullable String configuredUser, @Nullable String source, Clock clock) {
		this(configuredUser, source, null, clock);
	}

	private CredentialsTracker(@Nullable String configuredUser, @Nullable String source, @Nullable String reason,
			Clock clock) {
		this.user = configuredUser;
		this.source = source;
		this.reason = reason;
		this.clock = clock;
	}

	/**
	 * Wrap a provider so that the credentials it issues are tracked; the wrapper streams
	 * when the provider does.
	 * @param provider the provider
	 * @return the tracked provider
	 */
	public RedisCredentialsProvider track(RedisCredentialsProvider provider) {
		if (provider.supportsStreaming()) {
			this.streaming = true;
		}
		return new TrackingCredentialsProvider(provider, this);
	}

	void issued(RedisCredentials credentials) {
		this.user = userOf(credentials);
		this.issuedAt = this.clock.instant();
	}

	/**
	 * Return the user the credentials name: their user name, {@value #DEFAULT_USER} for a
	 * password alone, {@code null} for none.
	 * @param credentials the credentials
	 * @return the user
	 */
	public static @Nullable String userOf(RedisCredentials credentials) {
		if (credentials.hasUsername()) {
			return credentials.getUsername();
		}
		return credentials.hasPassword() ? DEFAULT_USER : null;
	}

	/**
	 * Return the user the client authenticates as.
	 * @return the user issued last, or the configured one; {@code null} if the client
	 * sends no credentials
	 */
	public @Nullable String user() {
		return this.user;
	}

	/**
	 * Return when a provider last issued credentials.
	 * @return the time, or {@code null} if none was issued yet or credentials are static
	 */
	public @Nullable Instant issuedAt() {
		return this.issuedAt;
	}

	/**
	 * Return what supplies the credentials.
	 * @return the type of the application's provider or factory, or {@code null} for
	 * Spring Boot's properties
	 */
	public @Nullable String source() {
		return this.source;
	}

	/**
	 * Return why the source supplies the credentials: which bean was taken and why, or
	 * why none was.
	 * @return the reason, or {@code null} if not known
	 */
	public @Nullable String reason() {
		return this.reason;
	}

	/**
	 * Return whether a tracked provider streams new credentials, which Lettuce then uses
	 * to re-authenticate live connections.
	 * @return whether credentials rotate
	 */
	public boolean streaming() {
		return this.streaming;
	}

}
