package io.github.lettucetuning.credentials;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A provider that streams new credentials when told to, as a token provider does when a
 * token is renewed: one hot stream that hands every subscriber the current credentials
 * first.
 */
final class RotatingCredentials implements RedisCredentialsProvider {

	private final Sinks.Many<RedisCredentials> sink = Sinks.many().replay().latest();

	private volatile RedisCredentials current;

	RotatingCredentials(String user, String password) {
		this.current = RedisCredentials.just(user, password);
		this.sink.tryEmitNext(this.current);
	}

	synchronized void rotate(String user, String password) {
		this.current = RedisCredentials.just(user, password);
		this.sink.emitNext(this.current, Sinks.EmitFailureHandler.busyLooping(java.time.Duration.ofSeconds(1)));
	}

	@Override
	public Mono<RedisCredentials> resolveCredentials() {
		return Mono.fromSupplier(() -> this.current);
	}

	@Override
	public boolean supportsStreaming() {
		return true;
	}

	@Override
	public Flux<RedisCredentials> credentials() {
		return this.sink.asFlux();
	}

}
