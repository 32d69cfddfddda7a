package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

import org.springframework.data.redis.connection.PoolException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link DedicatedConnectionPool} against a real standalone server, on its own: what
 * closing it does to connections it has not handed out yet, and what becomes of
 * asynchronous borrows that wait for a connection.
 */
@RedisStandaloneTest
@Timeout(60)
class DedicatedConnectionPoolIntegrationTests {

	private static final String CLIENT_NAME = "dedicated-pool-it";

	private final RedisStandalone redis;

	private RedisClient client;

	private RedisURI uri;

	DedicatedConnectionPoolIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void createClient() {
		this.uri = RedisURI.builder()
			.withHost(this.redis.host())
			.withPort(this.redis.port())
			.withClientName(CLIENT_NAME)
			.build();
		this.client = RedisClient.create(this.uri);
	}

	@AfterEach
	void shutdownClient() {
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
	}

	@Test
	void aCancelledAsynchronousBorrowGivesBackTheConnectionItWasHandedLater() throws Exception {
		DedicatedConnectionPool pool = waitingPool(Duration.ofSeconds(30));
		try {
			StatefulConnection<?, ?> first = borrowAsync(pool).get(5, TimeUnit.SECONDS);
			CompletableFuture<StatefulRedisConnection> abandoned = borrowAsync(pool);
			assertThat(pool.waitingCount()).isOne();
			abandoned.cancel(false);
			pool.releaseAsync(first).get(5, TimeUnit.SECONDS);
			// Its turn came after the cancel: the connection went straight back.
			await().atMost(Duration.ofSeconds(5)).until(() -> pool.borrowedCount() == 0);
			assertThat(pool.waitingCount()).isZero();
			StatefulRedisConnection next = borrowAsync(pool).get(1, TimeUnit.SECONDS);
			assertThat(next).isSameAs(first);
			assertThat(next.sync().ping()).isEqualTo("PONG");
			pool.release(next);
		}
		finally {
			pool.destroy();
		}
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.redis.node().countClients(CLIENT_NAME)).isZero());
	}

	@Test
	void closingThePoolFailsTheAsynchronousBorrowsStillWaiting() throws Exception {
		DedicatedConnectionPool pool = waitingPool(Duration.ofSeconds(30));
		borrowAsync(pool).get(5, TimeUnit.SECONDS);
		CompletableFuture<StatefulRedisConnection> waiting = borrowAsync(pool);
		pool.destroy();
		assertThat(waiting).failsWithin(Duration.ofSeconds(5))
			.withThrowableThat()
			.withMessageContaining("The pool is closed");
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.redis.node().countClients(CLIENT_NAME)).isZero());
	}

	@Test
	void aConnectionReleasedTwiceFailsAsInSpringDataAndStaysOpenForItsNextBorrower() throws Exception {
		DedicatedConnectionPool pool = waitingPool(Duration.ofSeconds(30));
		try {
			StatefulRedisConnection first = borrowAsync(pool).get(5, TimeUnit.SECONDS);
			pool.releaseAsync(first).get(5, TimeUnit.SECONDS);
			StatefulRedisConnection next = borrowAsync(pool).get(5, TimeUnit.SECONDS);
			assertThat(next).isSameAs(first);
			// The first borrower releases again, late: the connection is the next one's
			// now.
			pool.release(next);
			assertThat(pool.releaseAsync(first)).failsWithin(Duration.ofSeconds(5))
				.withThrowableThat()
				.withMessageContaining("was either previously returned");
			assertThatExceptionOfType(PoolException.class).isThrownBy(() -> pool.release(first));
			StatefulRedisConnection again = borrowAsync(pool).get(5, TimeUnit.SECONDS);
			assertThat(again).isSameAs(first);
			assertThat(again.isOpen()).isTrue();
			assertThat(again.sync().ping()).isEqualTo("PONG");
			pool.release(again);
		}
		finally {
			pool.destroy();
		}
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(this.redis.node().countClients(CLIENT_NAME)).isZero());
	}

	@Test
	void asynchronousBorrowsUpToMaxActiveNeverFailAsExhaustedWhateverMinIdleSays() throws Exception {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> config = new GenericObjectPoolConfig<>();
		config.setMaxTotal(4);
		config.setMinIdle(4);
		config.setMaxWait(Duration.ofSeconds(5));
		DedicatedConnectionPool pool = new DedicatedConnectionPool(new Opening(this.client, this.uri), config);
		pool.setTimer(this.client.getResources().timer());
		try {
			// Lettuce's pool opens idle connections in the background at its start and
			// after borrows: rounds of borrows meet it at both moments.
			for (int round = 0; round < 20; round++) {
				List<CompletableFuture<StatefulRedisConnection>> borrows = new ArrayList<>();
				for (int i = 0; i < 4; i++) {
					borrows.add(borrowAsync(pool));
				}
				for (CompletableFuture<StatefulRedisConnection> borrow : borrows) {
					assertThat(borrow).as("round %d", round).succeedsWithin(Duration.ofSeconds(5));
				}
				assertThat(borrows.stream().map(CompletableFuture::join).distinct()).hasSize(4);
				for (CompletableFuture<StatefulRedisConnection> borrow : borrows) {
					pool.releaseAsync(borrow.join()).get(5, TimeUnit.SECONDS);
				}
			}
		}
		finally {
			pool.destroy();
		}
	}

	// One connection, asynchronous borrows waiting at most the given time on the client's
	// timer.
	private DedicatedConnectionPool waitingPool(Duration maxWait) {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> config = new GenericObjectPoolConfig<>();
		config.setMaxTotal(1);
		config.setMaxWait(maxWait);
		DedicatedConnectionPool pool = new DedicatedConnectionPool(new Opening(this.client, this.uri), config);
		pool.setTimer(this.client.getResources().timer());
		return pool;
	}

	private static CompletableFuture<StatefulRedisConnection> borrowAsync(DedicatedConnectionPool pool) {
		return pool.getConnectionAsync(StatefulRedisConnection.class).toCompletableFuture();
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
	 * Opens connections to the server, closes them when released.
	 */
	private static final class Opening implements LettuceConnectionProvider {

		private final RedisClient client;

		private final RedisURI uri;

		Opening(RedisClient client, RedisURI uri) {
			this.client = client;
			this.uri = uri;
		}

		@Override
		public <T extends StatefulConnection<?, ?>> T getConnection(Class<T> connectionType) {
			return connectionType.cast(this.client.connect(ByteArrayCodec.INSTANCE));
		}

		@Override
		public <T extends StatefulConnection<?, ?>> CompletionStage<T> getConnectionAsync(Class<T> connectionType) {
			return this.client.connectAsync(ByteArrayCodec.INSTANCE, this.uri).thenApply(connectionType::cast);
		}

		@Override
		public void release(StatefulConnection<?, ?> connection) {
			connection.close();
		}

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
