package io.github.lettucetuning.timeout;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import org.jspecify.annotations.Nullable;

/**
 * A timeout scheduled on a {@link WheelTimer}. It is the only object allocated per
 * schedule-and-cancel: the same instance serves as the node of its producer stripe's
 * hand-over stack, as the node of its bucket's list and, if cancelled while in a bucket,
 * as the node of the cancellation stack.
 * <p>
 * Its state only moves forward, each step taken by one compare-and-set, so exactly one of
 * "cancelled" and "expired" wins: <pre>
 * QUEUED --(worker links it into a bucket)--&gt; SCHEDULED --(worker, deadline reached)--&gt; EXPIRED
 *    |                                            |
 *    +-----(cancel)-----&gt; CANCELLED &lt;-----(cancel)-----+
 * </pre> Link fields are plain: {@link #next} is written by the producer before the entry
 * is published by a compare-and-set and afterwards only by the worker, which owns the
 * whole chain once it has taken a stack; {@link #prev} and {@link #bucket} are touched by
 * the worker only; {@link #nextCancelled} is written by the cancelling thread before it
 * publishes the entry on the cancellation stack and then only by the worker.
 */
final class WheelTimeout implements Timeout, Runnable {

	static final int QUEUED = 0;

	static final int SCHEDULED = 1;

	static final int CANCELLED = 2;

	static final int EXPIRED = 3;

	static final int NO_BUCKET = -1;

	private static final VarHandle STATE;

	static {
		try {
			STATE = MethodHandles.lookup().findVarHandle(WheelTimeout.class, "state", int.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final WheelTimer timer;

	private final TimerTask task;

	/**
	 * Deadline in nanoseconds since the timer's origin, saturated at
	 * {@link Long#MAX_VALUE}.
	 */
	final long deadline;

	private volatile int state;

	@Nullable WheelTimeout next;

	@Nullable WheelTimeout prev;

	@Nullable WheelTimeout nextCancelled;

	int bucket = NO_BUCKET;

	WheelTimeout(WheelTimer timer, TimerTask task, long deadline) {
		this.timer = timer;
		this.task = task;
		this.deadline = deadline;
	}

	@Override
	public Timer timer() {
		return this.timer;
	}

	@Override
	public TimerTask task() {
		return this.task;
	}

	@Override
	public boolean isExpired() {
		return this.state == EXPIRED;
	}

	@Override
	public boolean isCancelled() {
		return this.state == CANCELLED;
	}

	/**
	 * Cancel this timeout unless it has expired or was cancelled before. Lock-free and
	 * wait-free in the common case (cancelled before the worker has seen it: a single
	 * compare-and-set). A timeout cancelled after the worker has linked it into a bucket
	 * is also pushed onto the cancelling thread's cancellation stack so that the worker
	 * unlinks it at its next tick instead of at its deadline.
	 * {@link TimerTask#cancelled(Timeout)} runs on the calling thread.
	 * @return {@code true} if this call cancelled the timeout
	 */
	@Override
	public boolean cancel() {
		if (STATE.compareAndSet(this, QUEUED, CANCELLED)) {
			this.timer.onCancelled(this, false);
			return true;
		}
		if (STATE.compareAndSet(this, SCHEDULED, CANCELLED)) {
			this.timer.onCancelled(this, true);
			return true;
		}
		return false;
	}

	/**
	 * Cancel without notifying the task or requesting an unlink, for a timer that is
	 * rolling back or stopping.
	 * @return {@code true} if this call cancelled the timeout
	 */
	boolean cancelQuietly() {
		return STATE.compareAndSet(this, QUEUED, CANCELLED) || STATE.compareAndSet(this, SCHEDULED, CANCELLED);
	}

	/**
	 * Mark a queued timeout as linked into a bucket.
	 * @return {@code false} if it was cancelled meanwhile
	 */
	boolean markScheduled() {
		return STATE.compareAndSet(this, QUEUED, SCHEDULED);
	}

	/**
	 * Claim a scheduled timeout for expiry.
	 * @return {@code false} if it was cancelled meanwhile
	 */
	boolean markExpired() {
		return STATE.compareAndSet(this, SCHEDULED, EXPIRED);
	}

	int state() {
		return this.state;
	}

	boolean isLinked() {
		return this.bucket != NO_BUCKET;
	}

	/**
	 * Run the task; the entry point when a task executor is configured, which saves
	 * allocating a runnable per expiry.
	 */
	@Override
	public void run() {
		this.timer.runTask(this);
	}

	@Override
	public String toString() {
		String state = switch (this.state) {
			case QUEUED -> "queued";
			case SCHEDULED -> "scheduled";
			case CANCELLED -> "cancelled";
			default -> "expired";
		};
		return "WheelTimeout[" + state + ", deadline=" + this.deadline + "ns, task=" + this.task + "]";
	}

}
