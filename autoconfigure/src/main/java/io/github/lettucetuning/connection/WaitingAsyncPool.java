package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.support.AsyncPool;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

/**
 * A Lettuce {@link AsyncPool} with a bounded wait in front. Lettuce's bounded pool fails
 * an acquire at once when all its connections are lent ("Pool exhausted"), whatever
 * {@code max-wait} says: a reactive burst wider than the pool failed while the same burst
 * on the synchronous path waited its turn. Here a borrow beyond the pool's size waits, in
 * arrival order, for a connection to come back, at most {@code maxWait}; the wait is a
 * timeout on the client's timer, so nothing runs while no one waits.
 */
// Works around Lettuce's bounded pool having no wait:
// docs/upstream.md#a-bounded-wait-for-asynchronous-borrows
final class WaitingAsyncPool {

	// Completed, so shared: no allocation when a turn is free.
	private static final CompletableFuture<Void> TURN_FREE = CompletableFuture.completedFuture(null);

	private final AsyncPool<StatefulConnection<?, ?>> pool;

	private final int maxTotal;

	private final Duration maxWait;

	private final @Nullable Timer timer;

	// Guards free and waiting; held for a few field updates, never while a future
	// completes.
	private final ReentrantLock lock = new ReentrantLock();

	private final Deque<CompletableFuture<Void>> waiting = new ArrayDeque<>();

	private final AtomicLong longestWaitNanos = new AtomicLong();

	// Turns not taken: connections lent plus turns free never exceed the pool's size.
	private int free;

	/**
	 * Create a waiting pool.
	 * @param pool the pool connections come from
	 * @param maxTotal the pool's size; not positive for no bound
	 * @param maxWait the longest a borrow waits for a turn; negative waits for ever
	 * @param timer the timer that ends waits, or {@code null} to fail at once when
	 * exhausted, as Lettuce's pool does
	 */
	WaitingAsyncPool(AsyncPool<StatefulConnection<?, ?>> pool, int maxTotal, Duration maxWait, @Nullable Timer timer) {
		this.pool = pool;
		this.maxTotal = maxTotal;
		this.maxWait = maxWait;
		this.timer = timer;
		this.free = Math.max(0, maxTotal);
	}

	private boolean isBounded() {
		return this.maxTotal > 0;
	}

	/**
	 * Borrow a connection once a turn is free.
	 * @return the connection, or a failure: {@link NoSuchElementException} when the wait
	 * is over, or what opening a connection threw
	 */
	CompletableFuture<StatefulConnection<?, ?>> acquire() {
		if (!isBounded()) {
			return this.pool.acquire();
		}
		// Only a turn taken goes back: a wait that timed out, or that the pool's closing
		// failed, never had one.
		return takeTurn().thenCompose((turn) -> this.pool.acquire().whenComplete((connection, ex) -> {
			if (ex != null) {
				giveTurn();
			}
		}));
	}

	/**
	 * Return a connection and its turn.
	 * @param connection the connection borrowed with {@link #acquire()}
	 * @return completes once the pool has it back
	 */
	CompletableFuture<Void> release(StatefulConnection<?, ?> connection) {
		CompletableFuture<Void> released = this.pool.release(connection);
		return isBounded() ? released.whenComplete((done, ex) -> giveTurn()) : released;
	}

	private CompletableFuture<Void> takeTurn() {
		CompletableFuture<Void> turn;
		this.lock.lock();
		try {
			if (this.free > 0 && this.waiting.isEmpty()) {
				this.free--;
				return TURN_FREE;
			}
			if (this.maxWait.isZero() || (this.timer == null && !this.maxWait.isNegative())) {
				return CompletableFuture.failedFuture(new TurnTimeout());
			}
			turn = new CompletableFuture<>();
			this.waiting.add(turn);
		}
		finally {
			this.lock.unlock();
		}
		long start = System.nanoTime();
		Timeout timeout;
		try {
			timeout = endOfWait(turn);
		}
		catch (RuntimeException ex) {
			// A stopped timer (the client shutting down): a waiter nobody ends would
			// take the next turn and never give it back.
			expire(turn);
			return turn;
		}
		return turn.whenComplete((taken, ex) -> {
			if (timeout != null) {
				timeout.cancel();
			}
			this.longestWaitNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
		});
	}

	private @Nullable Timeout endOfWait(CompletableFuture<Void> turn) {
		Timer timer = this.timer;
		if (timer == null || this.maxWait.isNegative()) {
			return null;
		}
		return timer.newTimeout((expired) -> expire(turn), this.maxWait.toNanos(), TimeUnit.NANOSECONDS);
	}

	private void giveTurn() {
		CompletableFuture<Void> next;
		this.lock.lock();
		try {
			next = this.waiting.poll();
			if (next == null) {
				this.free++;
				return;
			}
		}
		finally {
			this.lock.unlock();
		}
		// The oldest waiter runs on, on this thread: a turn handed over, never freed.
		next.complete(null);
	}

	// Whoever removes a waiter completes it: the timer here, or giveTurn() with a turn.
	private void expire(CompletableFuture<Void> turn) {
		boolean removed;
		this.lock.lock();
		try {
			removed = this.waiting.remove(turn);
		}
		finally {
			this.lock.unlock();
		}
		if (removed) {
			turn.completeExceptionally(new TurnTimeout());
		}
	}

	/**
	 * Fail the borrows still waiting, then close the pool.
	 * @return completes once the pool is closed
	 */
	CompletableFuture<Void> closeAsync() {
		failWaiting();
		return this.pool.closeAsync();
	}

	/**
	 * Fail the borrows still waiting: the pool is closing.
	 */
	void failWaiting() {
		List<CompletableFuture<Void>> abandoned;
		this.lock.lock();
		try {
			abandoned = List.copyOf(this.waiting);
			this.waiting.clear();
		}
		finally {
			this.lock.unlock();
		}
		abandoned.forEach((turn) -> turn.completeExceptionally(new IllegalStateException("The pool is closed")));
	}

	int waitingCount() {
		this.lock.lock();
		try {
			return this.waiting.size();
		}
		finally {
			this.lock.unlock();
		}
	}

	Duration longestWait() {
		return Duration.ofNanos(this.longestWaitNanos.get());
	}

	int maxTotal() {
		return this.maxTotal;
	}

	Duration maxWait() {
		return this.maxWait;
	}

	static boolean isTurnTimeout(Throwable ex) {
		return unwrap(ex) instanceof TurnTimeout;
	}

	private static Throwable unwrap(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	/**
	 * The wait for a turn is over: what commons-pool2 throws when its wait times out.
	 */
	static final class TurnTimeout extends NoSuchElementException {

		TurnTimeout() {
			super("Timeout waiting for a turn");
		}

	}

}
