package io.github.lettucetuning.connection;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.push.PushListener;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.protocol.ConnectionFacade;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.tracing.Tracing;
import reactor.core.publisher.Mono;

import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * A connection without a server, for unit tests of the connection set: a real
 * {@link RedisChannelHandler}, so it opens, deactivates and closes as Lettuce's do, whose
 * {@code PING} answers while it is open and whose reactive {@code GET} returns what the
 * test's function makes of the key.
 */
final class FakeConnection extends RedisChannelHandler<byte[], byte[]>
		implements StatefulRedisConnection<byte[], byte[]> {

	private static final ClientResources RESOURCES = resources();

	private final Function<String, Mono<byte[]>> get;

	FakeConnection() {
		this((key) -> Mono.just(key.getBytes()));
	}

	FakeConnection(Function<String, Mono<byte[]>> get) {
		super(new Writer(), Duration.ofSeconds(1));
		this.get = get;
	}

	private static ClientResources resources() {
		ClientResources resources = mock(ClientResources.class);
		given(resources.tracing()).willReturn(Tracing.disabled());
		return resources;
	}

	@Override
	public boolean isMulti() {
		return false;
	}

	@Override
	public RedisCommands<byte[], byte[]> sync() {
		return (RedisCommands<byte[], byte[]>) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { RedisCommands.class }, (proxy, method, args) -> {
					if (method.getName().equals("ping") && isOpen()) {
						return "PONG";
					}
					throw new IllegalStateException(method.getName() + " on a fake connection that is not open");
				});
	}

	@Override
	public RedisAsyncCommands<byte[], byte[]> async() {
		throw new UnsupportedOperationException();
	}

	@Override
	public RedisReactiveCommands<byte[], byte[]> reactive() {
		return (RedisReactiveCommands<byte[], byte[]>) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { RedisReactiveCommands.class }, (proxy, method, args) -> {
					if (method.getName().equals("get")) {
						return this.get.apply(new String((byte[]) args[0]));
					}
					if (method.getName().equals("getStatefulConnection")) {
						return this;
					}
					throw new UnsupportedOperationException(method.getName());
				});
	}

	@Override
	public void addListener(PushListener listener) {
	}

	@Override
	public void removeListener(PushListener listener) {
	}

	@Override
	public <T> RedisCommand<byte[], byte[], T> dispatch(RedisCommand<byte[], byte[], T> command) {
		return command;
	}

	@Override
	@SuppressWarnings("unchecked")
	public Collection<RedisCommand<byte[], byte[], ?>> dispatch(
			Collection<? extends RedisCommand<byte[], byte[], ?>> commands) {
		return (Collection<RedisCommand<byte[], byte[], ?>>) commands;
	}

	@Override
	public RedisCodec<byte[], byte[]> getCodec() {
		return ByteArrayCodec.INSTANCE;
	}

	private static final class Writer implements RedisChannelWriter {

		@Override
		public <K, V, T> RedisCommand<K, V, T> write(RedisCommand<K, V, T> command) {
			return command;
		}

		@Override
		@SuppressWarnings("unchecked")
		public <K, V> Collection<RedisCommand<K, V, ?>> write(Collection<? extends RedisCommand<K, V, ?>> commands) {
			return (Collection<RedisCommand<K, V, ?>>) commands;
		}

		@Override
		public void close() {
		}

		@Override
		public CompletableFuture<Void> closeAsync() {
			return CompletableFuture.completedFuture(null);
		}

		@Override
		public void setConnectionFacade(ConnectionFacade connection) {
		}

		@Override
		public void setAutoFlushCommands(boolean autoFlush) {
		}

		@Override
		public void flushCommands() {
		}

		@Override
		public ClientResources getClientResources() {
			return RESOURCES;
		}

	}

}
