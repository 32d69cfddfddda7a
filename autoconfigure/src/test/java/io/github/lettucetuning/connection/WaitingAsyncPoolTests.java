package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.support.AsyncObjectFactory;
import io.lettuce.core.support.BoundedAsyncPool;
import io.lettuce.core.support.BoundedPoolConfig;
import io.netty.util.HashedWheelTimer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link WaitingAsyncPool}'s turns: connections lent plus turns free never exceed the
 * pool's size, whichever way a wait ends.
 */
class WaitingAsyncPoolTests {

	private final HashedWheelTimer timer = new HashedWheelTimer();

	@AfterEach
	void stopTimer() {
		this.timer.stop();
	}

	@Test
	void aWaitFailedByClosingGivesNoTurnBack() {
		WaitingAsyncPool pool = pool(1, Duration.ofSeconds(30));
		StatefulConnection<?, ?> lent = pool.acquire().join();
		CompletableFuture<StatefulConnection<?, ?>> first = pool.acquire();
		CompletableFuture<StatefulConnection<?, ?>> second = pool.acquire();
		assertThat(pool.waitingCount()).isEqualTo(2);
		pool.failWaiting();
		assertThat(first).isCompletedExceptionally();
		assertThat(second).isCompletedExceptionally();
		// No turn came back for the two failed waits: the next borrow still waits for the
		// one connection lent.
		CompletableFuture<StatefulConnection<?, ?>> third = pool.acquire();
		assertThat(third).isNotDone();
		pool.release(lent).join();
		assertThat(third).succeedsWithin(Duration.ofSeconds(5)).isSameAs(lent);
		assertThat(pool.acquire()).isNotDone();
	}

	@Test
	void aWaitThatTimesOutGivesNoTurnBack() {
		WaitingAsyncPool pool = pool(1, Duration.ofMillis(50));
		StatefulConnection<?, ?> lent = pool.acquire().join();
		CompletableFuture<StatefulConnection<?, ?>> late = pool.acquire();
		assertThat(late).failsWithin(Duration.ofSeconds(5))
			.withThrowableThat()
			.withMessageContaining("Timeout waiting for a turn");
		assertThat(pool.acquire()).failsWithin(Duration.ofSeconds(5));
		pool.release(lent).join();
		assertThat(pool.acquire()).succeedsWithin(Duration.ofSeconds(5)).isSameAs(lent);
	}

	@Test
	void aTurnWhoseConnectionCouldNotBeOpenedGoesBack() {
		BoundedPoolConfig config = BoundedPoolConfig.builder().maxTotal(1).maxIdle(1).minIdle(0).build();
		AsyncObjectFactory<StatefulConnection<?, ?>> failing = new Connections(true);
		WaitingAsyncPool pool = new WaitingAsyncPool(new BoundedAsyncPool<>(failing, config), 1, Duration.ofSeconds(30),
				this.timer);
		assertThat(pool.acquire()).failsWithin(Duration.ofSeconds(5))
			.withThrowableThat()
			.withMessageContaining("Cannot allocate object");
		// The turn came back: the next borrow does not wait, it tries to open a
		// connection.
		assertThat(pool.acquire()).failsWithin(Duration.ofSeconds(5))
			.withThrowableThat()
			.withMessageContaining("Cannot allocate object");
		assertThat(pool.waitingCount()).isZero();
	}

	private WaitingAsyncPool pool(int size, Duration maxWait) {
		BoundedPoolConfig config = BoundedPoolConfig.builder().maxTotal(size).maxIdle(size).minIdle(0).build();
		return new WaitingAsyncPool(new BoundedAsyncPool<>(new Connections(false), config), size, maxWait, this.timer);
	}

	private record Connections(boolean fail) implements AsyncObjectFactory<StatefulConnection<?, ?>> {

		@Override
		public CompletableFuture<StatefulConnection<?, ?>> create() {
			return this.fail ? CompletableFuture.failedFuture(new IllegalStateException("cannot connect"))
					: CompletableFuture.completedFuture(new FakeConnection());
		}

		@Override
		public CompletableFuture<Void> destroy(StatefulConnection<?, ?> connection) {
			return connection.closeAsync();
		}

		@Override
		public CompletableFuture<Boolean> validate(StatefulConnection<?, ?> connection) {
			return CompletableFuture.completedFuture(connection.isOpen());
		}

	}

}
