package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link DedicatedConnectionPool} against a real standalone server, on its own: what
 * closing it does to connections it has not handed out yet.
 */
@RedisStandaloneTest
@Timeout(60)
class DedicatedConnectionPoolIntegrationTests {

	private static final String CLIENT_NAME = "dedicated-pool-it";

	private final RedisStandalone redis;

	private RedisClient client;

	DedicatedConnectionPoolIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void createClient() {
		this.client = RedisClient.create(RedisURI.builder()
			.withHost(this.redis.host())
			.withPort(this.redis.port())
			.withClientName(CLIENT_NAME)
			.build());
	}

	@AfterEach
	void shutdownClient() {
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Test
	void aConnectionStillBeingOpenedWhenThePoolClosesIsClosedOnArrival() throws Exception {
		OpeningLate target = new OpeningLate(this.client);
		DedicatedConnectionPool pool = new DedicatedConnectionPool(target, new GenericObjectPoolConfig<>());
		// An idle synchronous connection: the pool closes it on the way out, and that is
		// when the asynchronous connect below completes.
		pool.release(pool.getConnection(StatefulRedisConnection.class));
		CompletableFuture<StatefulRedisConnection> borrowing = pool.getConnectionAsync(StatefulRedisConnection.class)
			.toCompletableFuture();
		assertThat(borrowing).isNotDone();
		pool.destroy();
		assertThat(target.opened).isDone();
		StatefulConnection<?, ?> late = target.opened.get(5, TimeUnit.SECONDS);
		assertThat(late.isOpen()).as("the connection that arrived during destroy() is closed").isFalse();
		assertThat(borrowing).succeedsWithin(Duration.ofSeconds(5))
			.satisfies((connection) -> assertThat(connection.isOpen()).isFalse());
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.redis.node().countClients(CLIENT_NAME)).isZero());
	}

	/**
	 * Opens synchronous connections at once; an asynchronous one completes only when a
	 * connection is released (closed) to it, as a connect slower than the shutdown would.
	 */
	private static final class OpeningLate implements LettuceConnectionProvider {

		private final RedisClient client;

		private final CompletableFuture<StatefulConnection<?, ?>> opened = new CompletableFuture<>();

		OpeningLate(RedisClient client) {
			this.client = client;
		}

		@Override
		public <T extends StatefulConnection<?, ?>> T getConnection(Class<T> connectionType) {
			return connectionType.cast(this.client.connect(ByteArrayCodec.INSTANCE));
		}

		@Override
		public <T extends StatefulConnection<?, ?>> CompletionStage<T> getConnectionAsync(Class<T> connectionType) {
			return this.opened.thenApply(connectionType::cast);
		}

		@Override
		public void release(StatefulConnection<?, ?> connection) {
			connection.close();
			if (!this.opened.isDone()) {
				this.opened.complete(this.client.connect(ByteArrayCodec.INSTANCE));
			}
		}

	}

}
