package io.github.lettucetuning.connection;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Deque;

import io.lettuce.core.api.StatefulConnection;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.PooledObjectState;

/**
 * The pool's bookkeeping for one connection, keeping its timestamps as epoch
 * milliseconds. commons-pool2's {@code DefaultPooledObject} stores an {@link Instant} at
 * every borrow and return and computes {@link Duration}s from fresh ones: in pooled mode,
 * where every command borrows, that is five objects per command. Here a borrow and a
 * return allocate nothing, and the durations the pool's statistics ask for are whole
 * milliseconds, which are {@link Duration#ZERO} for the sub-millisecond holds of plain
 * commands. Abandoned-object tracking is not supported: the dedicated pool never
 * configures it.
 *
 * @since 0.1.0
 */
final class ConnectionPooledObject implements PooledObject<StatefulConnection<?, ?>> {

	private final StatefulConnection<?, ?> connection;

	private final long createdAt = System.currentTimeMillis();

	private PooledObjectState state = PooledObjectState.IDLE;

	private volatile long borrowedAt = this.createdAt;

	private volatile long usedAt = this.createdAt;

	private volatile long returnedAt = this.createdAt;

	private volatile long borrowedCount;

	ConnectionPooledObject(StatefulConnection<?, ?> connection) {
		this.connection = connection;
	}

	@Override
	public StatefulConnection<?, ?> getObject() {
		return this.connection;
	}

	@Override
	public synchronized boolean allocate() {
		if (this.state == PooledObjectState.IDLE) {
			this.state = PooledObjectState.ALLOCATED;
			long now = System.currentTimeMillis();
			this.borrowedAt = now;
			this.usedAt = now;
			this.borrowedCount++;
			return true;
		}
		if (this.state == PooledObjectState.EVICTION) {
			// The evictor hands it back to the head of the queue when its test ends.
			this.state = PooledObjectState.EVICTION_RETURN_TO_HEAD;
		}
		return false;
	}

	@Override
	public synchronized boolean deallocate() {
		if (this.state == PooledObjectState.ALLOCATED || this.state == PooledObjectState.RETURNING) {
			this.state = PooledObjectState.IDLE;
			this.returnedAt = System.currentTimeMillis();
			return true;
		}
		return false;
	}

	@Override
	public synchronized boolean startEvictionTest() {
		if (this.state == PooledObjectState.IDLE) {
			this.state = PooledObjectState.EVICTION;
			return true;
		}
		return false;
	}

	@Override
	public synchronized boolean endEvictionTest(Deque<PooledObject<StatefulConnection<?, ?>>> idleQueue) {
		if (this.state == PooledObjectState.EVICTION) {
			this.state = PooledObjectState.IDLE;
			return true;
		}
		if (this.state == PooledObjectState.EVICTION_RETURN_TO_HEAD) {
			this.state = PooledObjectState.IDLE;
			idleQueue.offerFirst(this);
		}
		return false;
	}

	@Override
	public synchronized PooledObjectState getState() {
		return this.state;
	}

	@Override
	public synchronized void invalidate() {
		this.state = PooledObjectState.INVALID;
	}

	@Override
	public synchronized void markAbandoned() {
		this.state = PooledObjectState.ABANDONED;
	}

	@Override
	public synchronized void markReturning() {
		this.state = PooledObjectState.RETURNING;
	}

	@Override
	public void use() {
		this.usedAt = System.currentTimeMillis();
	}

	@Override
	public Duration getActiveDuration() {
		return Duration.ofMillis(getActiveTimeMillis());
	}

	@Override
	public long getActiveTimeMillis() {
		long borrowed = this.borrowedAt;
		long returned = this.returnedAt;
		long end = (returned >= borrowed) ? returned : System.currentTimeMillis();
		return Math.max(0, end - borrowed);
	}

	@Override
	public Duration getIdleDuration() {
		return Duration.ofMillis(getIdleTimeMillis());
	}

	@Override
	public long getIdleTimeMillis() {
		return Math.max(0, System.currentTimeMillis() - this.returnedAt);
	}

	@Override
	public long getBorrowedCount() {
		return this.borrowedCount;
	}

	@Override
	public Instant getCreateInstant() {
		return Instant.ofEpochMilli(this.createdAt);
	}

	@Override
	public long getCreateTime() {
		return this.createdAt;
	}

	@Override
	public Instant getLastBorrowInstant() {
		return Instant.ofEpochMilli(this.borrowedAt);
	}

	@Override
	public long getLastBorrowTime() {
		return this.borrowedAt;
	}

	@Override
	public Instant getLastReturnInstant() {
		return Instant.ofEpochMilli(this.returnedAt);
	}

	@Override
	public long getLastReturnTime() {
		return this.returnedAt;
	}

	@Override
	public Instant getLastUsedInstant() {
		return Instant.ofEpochMilli(this.usedAt);
	}

	@Override
	public long getLastUsedTime() {
		return this.usedAt;
	}

	@Override
	public void setLogAbandoned(boolean logAbandoned) {
	}

	@Override
	public void printStackTrace(PrintWriter writer) {
	}

	// Oldest return first, as the evictor expects; identity breaks ties.
	@Override
	public int compareTo(PooledObject<StatefulConnection<?, ?>> other) {
		int byReturn = Long.compare(this.returnedAt, other.getLastReturnTime());
		return (byReturn != 0) ? byReturn
				: Integer.compare(System.identityHashCode(this), System.identityHashCode(other));
	}

	@Override
	public boolean equals(Object other) {
		return this == other;
	}

	@Override
	public int hashCode() {
		return System.identityHashCode(this);
	}

	@Override
	public String toString() {
		return "Object: " + this.connection + ", State: " + getState();
	}

}
