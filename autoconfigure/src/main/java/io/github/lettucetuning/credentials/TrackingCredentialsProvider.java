package io.github.lettucetuning.credentials;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A provider that reports to a {@link CredentialsTracker} every credentials the provider
 * it wraps issues, and otherwise behaves as that provider: Lettuce asks whether it
 * streams to decide whether to subscribe.
 */
final class TrackingCredentialsProvider implements RedisCredentialsProvider {

	private final RedisCredentialsProvider delegate;

	private final CredentialsTracker tracker;

	TrackingCredentialsProvider(RedisCredentialsProvider delegate, CredentialsTracker tracker) {
		this.delegate = delegate;
		this.tracker = tracker;
	}

	@Override
	public Mono<RedisCredentials> resolveCredentials() {
		return this.delegate.resolveCredentials().doOnNext(this.tracker::issued);
	}

	@Override
	public boolean supportsStreaming() {
		return this.delegate.supportsStreaming();
	}

	@Override
	public Flux<RedisCredentials> credentials() {
		return this.delegate.credentials().doOnNext(this.tracker::issued);
	}

	@Override
	public String toString() {
		return "tracked " + this.delegate.getClass().getName();
	}

}
