package io.github.lettucetuning.timeout;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import org.jspecify.annotations.Nullable;

/**
 * A hashed timing-wheel {@link Timer} built for Lettuce's pattern: one timeout per
 * command, scheduled by the calling thread, cancelled about a hundred microseconds later
 * by the event loop that completes the command, and almost never expiring. It remains a
 * general-purpose Netty timer (Lettuce also uses it for reconnect delays, handshake and
 * topology-refresh timeouts): any delay from zero up to {@code Long.MAX_VALUE}
 * nanoseconds is accepted. Install it with
 * {@code DefaultClientResources.builder().timer(timer)}; Lettuce then treats it as shared
 * and never stops it, so stop it yourself after the client resources have shut down.
 *
 * <h2>Thread model</h2> {@link #newTimeout} (any number of producer threads) and
 * {@link Timeout#cancel()} (typically event-loop threads) take no lock. One worker
 * thread, started by the first {@code newTimeout}, sleeps tick by tick while timeouts are
 * being scheduled; at each tick it moves newly scheduled timeouts into the wheel, unlinks
 * timeouts cancelled while in the wheel, and expires the due ones. After a tick in which
 * nothing was scheduled it parks until the earliest deadline in the wheel, or
 * indefinitely when the wheel is empty, so an idle timer costs no wake-ups. Cancelling
 * never wakes it; scheduling wakes it only from that sleep: the producer reads one
 * volatile flag that the worker sets before it checks the hand-over stacks a last time,
 * so either the producer sees the flag or the worker sees the timeout, and no wake-up is
 * lost. Tasks run on the worker thread (they must not block; Lettuce's only hand over to
 * another executor) or, if {@link WheelTimerOptions.Builder#taskExecutor(Executor)
 * configured}, on a task executor. A task that throws is logged and does not affect the
 * worker.
 *
 * <h2>Why striped hand-over stacks</h2> A single shared queue and a single
 * {@code AtomicLong} of pending timeouts make every command pay for a cache line that all
 * cores write. Here each producer thread is mapped (by a hash of its id) to one of a few
 * padded stripes (four times the number of processors, rounded up to a power of two, at
 * most 64). A stripe holds a lock-free stack that the producer pushes onto with one
 * compare-and-set and that the worker takes whole with one swap, and the counters the
 * pending limit needs; threads rarely share a stripe, so these cache lines stay local.
 * The timeout entry itself is the stack node, so scheduling allocates exactly one object.
 *
 * <h2>Cancellation</h2> Cancelling is O(1): one compare-and-set on the entry plus a local
 * counter increment. A timeout cancelled before the worker has seen it (nearly all of
 * them, since ticks are milliseconds and commands microseconds) is dropped by the worker
 * while draining the stacks after reading one field; it never enters the wheel. A timeout
 * cancelled after it entered the wheel is pushed onto the canceller's cancellation stack
 * and unlinked at the next tick the worker processes: within one tick while timeouts are
 * being scheduled, and, once the worker sleeps for lack of work, when it next wakes, at
 * the latest at the earliest remaining deadline. Only the worker touches bucket lists,
 * which is why cancelling threads hand entries over instead of unlinking them.
 * {@link TimerTask#cancelled(Timeout)} runs on the cancelling thread (Netty's timer runs
 * it later on its worker).
 *
 * <h2>Tick approximation and span</h2> Time is divided in ticks of
 * {@link WheelTimerOptions#tickDuration()} (default 10 ms). A timeout goes to the bucket
 * of the first tick boundary at or after its deadline, so it fires no earlier than its
 * deadline and, unless the worker is starved or a task blocks it, at most one tick later.
 * A timeout scheduled without delay wakes the worker and runs at once, and one whose
 * deadline has passed when the worker takes it runs in that pass: neither waits for a
 * tick. Timeouts due in the same tick run in deadline order. The wheel has
 * {@link WheelTimerOptions#wheelSize()} buckets (default 8192, a span of 81.92 s at 10
 * ms): large enough that typical command timeouts (2 to 60 s) need no extra round, while
 * the wheel stays a 32 KB array of references. Longer delays are still exact: their
 * entries sit in a bucket and are skipped, after a comparison, on each revolution until
 * the one in which they are due. A hierarchical wheel would avoid those revisits but
 * cascade entries between levels; with 80 s of span and almost everything cancelled
 * early, one level is cheaper.
 *
 * <h2>Pending limit</h2> {@link WheelTimerOptions#maxPendingTimeouts()} bounds scheduled
 * timeouts that have neither expired nor been cancelled. The count is kept as striped
 * counters; at each tick the worker grants every stripe an equal share of the remaining
 * headroom (from a count that can only be too high), and a producer only sums all stripes
 * when its stripe has used up its share (that sum can only be too low, so no call is
 * rejected while the timer is below its limit). The limit is therefore exact except for
 * threads racing through that slow path at the same moment, which can each exceed it by
 * one. A rejected call throws {@link RejectedExecutionException} naming the limit and the
 * option to raise.
 *
 * <h2>Memory</h2> About 48 bytes per pending entry (compressed oops) plus what its task
 * references, the bucket array, and a padded cache line pair per stripe. Cancelled
 * entries are released by the next tick.
 *
 * <h2>Instances</h2> Create one timer per {@code ClientResources} and share it; do not
 * create one per connection or per command. Each instance owns a thread; a warning is
 * logged once when more than 64 instances are alive at the same time (constructed and not
 * yet stopped).
 *
 * <h2>Stopping and testing</h2> {@link #stop()} stops the worker, cancels the timeouts
 * that had neither expired nor been cancelled and returns them; it is idempotent, and
 * {@link #newTimeout} afterwards throws {@link IllegalStateException}. Time comes from
 * {@link WheelTimerOptions#ticker()}; together with a package-private mode without worker
 * thread, in which the test drives the ticks, this lets tests check every timing bound
 * exactly without sleeping.
 *
 * @since 0.1.0
 * @see WheelTimerOptions
 */
public final class WheelTimer implements Timer {

	/**
	 * Number of live (constructed, not stopped) instances above which a warning is logged
	 * once.
	 */
	static final int INSTANCE_COUNT_WARNING_THRESHOLD = 64;

	private static final InternalLogger logger = InternalLoggerFactory.getInstance(WheelTimer.class);

	private static final AtomicInteger liveInstances = new AtomicInteger();

	private static final AtomicBoolean warnedAboutInstances = new AtomicBoolean();

	private static final int MAX_STRIPES = 64;

	private static final int INITIAL_BATCH_CAPACITY = 64;

	private static final int MAX_RETAINED_BATCH_CAPACITY = 4096;

	private static final int NOT_STARTED = 0;

	private static final int STARTED = 1;

	private static final int STOPPED = 2;

	private static final Comparator<WheelTimeout> BY_DEADLINE = Comparator.comparingLong((timeout) -> timeout.deadline);

	private static final VarHandle LIFECYCLE;

	private static final VarHandle WORKER_SLEEPING;

	static {
		try {
			LIFECYCLE = MethodHandles.lookup().findVarHandle(WheelTimer.class, "lifecycle", int.class);
			WORKER_SLEEPING = MethodHandles.lookup().findVarHandle(WheelTimer.class, "workerSleeping", boolean.class);
		}
		catch (ReflectiveOperationException ex) {
			throw new ExceptionInInitializerError(ex);
		}
	}

	private final WheelTimerOptions options;

	private final Ticker ticker;

	private final long tickNanos;

	/**
	 * Ticker reading at construction; deadlines and ticks are counted from here.
	 */
	private final long origin;

	private final long maxPendingTimeouts;

	private final @Nullable Executor taskExecutor;

	private final Stripe[] stripes;

	private final int stripeMask;

	/**
	 * Heads of the bucket lists; touched by the ticking thread only (and by
	 * {@link #stop()} once it has stopped).
	 */
	private final @Nullable WheelTimeout[] buckets;

	private final int bucketMask;

	private final @Nullable Thread worker;

	private volatile int lifecycle;

	/**
	 * Thread currently processing ticks, to reject {@link #stop()} from a task it runs.
	 */
	private volatile @Nullable Thread tickingThread;

	/**
	 * Written by the ticking thread only.
	 */
	private volatile long expiredCount;

	/**
	 * Whether the worker is parked beyond the next tick: until the earliest deadline in
	 * the wheel, or indefinitely when the wheel is empty. Set by the worker; a producer
	 * that finds it set clears it and unparks the worker.
	 */
	private volatile boolean workerSleeping;

	/**
	 * Set by a producer that scheduled a timeout with no delay, which the worker then
	 * runs at once rather than at the next tick. Cleared by the worker.
	 */
	private volatile boolean dueNow;

	/**
	 * Ticks the worker thread has processed; written by the worker only. For tests of the
	 * idle behaviour.
	 */
	private volatile long workerTicks;

	// State below is confined to the ticking thread.

	private long lastTick;

	/**
	 * Entries currently linked into buckets, cancelled ones included until they are
	 * unlinked.
	 */
	private long linkedCount;

	/**
	 * Whether the last processed tick took no entry from the hand-over stacks: nothing
	 * was scheduled during it.
	 */
	private boolean quietTick;

	private final long[] addedSnapshot;

	private WheelTimeout[] expiredBatch = new WheelTimeout[INITIAL_BATCH_CAPACITY];

	private int expiredBatchSize;

	/**
	 * Create a timer with {@link WheelTimerOptions#create() default options}.
	 */
	public WheelTimer() {
		this(WheelTimerOptions.create());
	}

	/**
	 * Create a timer with the given options. The worker thread starts with the first
	 * {@link #newTimeout}.
	 * @param options the options
	 */
	public WheelTimer(WheelTimerOptions options) {
		this(options, true);
	}

	private WheelTimer(WheelTimerOptions options, boolean withWorker) {
		Objects.requireNonNull(options, "options must not be null");
		this.options = options;
		this.ticker = options.ticker();
		this.tickNanos = options.tickDuration().toNanos();
		this.origin = this.ticker.nanoTime();
		this.maxPendingTimeouts = options.maxPendingTimeouts();
		this.taskExecutor = options.taskExecutor();
		this.stripes = createStripes(stripeCount(Runtime.getRuntime().availableProcessors()), this.maxPendingTimeouts);
		this.stripeMask = this.stripes.length - 1;
		this.addedSnapshot = new long[this.stripes.length];
		this.buckets = new WheelTimeout[options.wheelSize()];
		this.bucketMask = options.wheelSize() - 1;
		this.worker = withWorker ? newWorkerThread(options) : null;
		this.lifecycle = withWorker ? NOT_STARTED : STARTED;
		countInstance();
	}

	/**
	 * Create a timer without a worker thread, for tests: ticks are processed by whoever
	 * calls {@link #advance()}, according to the options'
	 * {@link WheelTimerOptions#ticker() ticker}. Only one thread may call
	 * {@code advance()} and {@code stop()}; any threads may schedule and cancel.
	 * @param options the options, normally with a manual ticker
	 * @return a started timer without a worker thread
	 */
	static WheelTimer withoutWorker(WheelTimerOptions options) {
		return new WheelTimer(options, false);
	}

	/**
	 * Schedule {@code task} to run once after {@code delay}. Lock-free; wakes the worker
	 * only when it sleeps for lack of work (the first call starts it).
	 * @param task the task to run when the timeout expires
	 * @param delay the delay; zero or negative runs the task at once, on the worker
	 * @param unit the unit of {@code delay}
	 * @return a handle that can cancel the task
	 * @throws IllegalStateException if the timer has been stopped
	 * @throws RejectedExecutionException if
	 * {@link WheelTimerOptions#maxPendingTimeouts()} timeouts are pending
	 */
	@Override
	public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
		Objects.requireNonNull(task, "task must not be null");
		Objects.requireNonNull(unit, "unit must not be null");
		if (this.lifecycle != STARTED) {
			start();
		}
		Stripe stripe = stripeOfCurrentThread();
		reservePendingSlot(stripe);
		long delayNanos = unit.toNanos(delay);
		WheelTimeout timeout = new WheelTimeout(this, task, deadlineAfter(delayNanos));
		stripe.pushQueued(timeout);
		if (delayNanos <= 0) {
			wakeWorkerNow();
		}
		// One volatile read of a field the worker writes only when it falls asleep or
		// wakes up. The push above is a
		// compare-and-set, so either this read sees the worker asleep, or the worker,
		// which sets the flag before it
		// looks at the stacks a last time, sees this timeout and stays awake: no wake-up
		// is lost.
		if (this.workerSleeping) {
			wakeWorker();
		}
		if (this.lifecycle == STOPPED) {
			rollBack(timeout, stripe);
		}
		return timeout;
	}

	/**
	 * Stop the worker and cancel every timeout that has neither expired nor been
	 * cancelled. Idempotent; waits for a task running on the worker thread to finish.
	 * @return the timeouts this call cancelled (unmodifiable; empty on repeated calls)
	 * @throws IllegalStateException if called from a task running on the timer thread
	 */
	@Override
	public Set<Timeout> stop() {
		Thread current = Thread.currentThread();
		if (current == this.worker || current == this.tickingThread) {
			throw new IllegalStateException(WheelTimer.class.getSimpleName() + ".stop() cannot be called from a "
					+ TimerTask.class.getSimpleName() + " running on the timer thread");
		}
		int previous = (int) LIFECYCLE.getAndSet(this, STOPPED);
		if (previous == STOPPED) {
			return Collections.emptySet();
		}
		liveInstances.decrementAndGet();
		if (previous == STARTED && this.worker != null) {
			awaitTermination(this.worker);
		}
		return cancelUnprocessed();
	}

	/**
	 * Return the number of timeouts scheduled and neither expired nor cancelled. Exact
	 * when no thread is scheduling or cancelling; under concurrent updates it may miss
	 * timeouts scheduled during the call, but never counts one that was cancelled or
	 * expired before the call, so a busy timer never looks leaky.
	 * @return the number of pending timeouts
	 */
	public long pendingTimeouts() {
		// Sums of striped counters are no snapshot: a thread preempted between two reads
		// sees the other threads' updates of the later counters only. Reading the
		// additions first bounds the error to additions made during the call, which can
		// only lower the result.
		long added = 0;
		for (Stripe stripe : this.stripes) {
			added += stripe.added;
		}
		long removed = 0;
		for (Stripe stripe : this.stripes) {
			removed += stripe.removed;
		}
		return Math.max(0, added - removed - this.expiredCount);
	}

	/**
	 * Return the number of timeouts that have expired since the timer was created:
	 * monotonic, counted when the worker claims them, just before their task runs or is
	 * handed to the task executor.
	 * @return the number of expired timeouts
	 */
	public long expiredTimeouts() {
		return this.expiredCount;
	}

	/**
	 * Return the duration of one tick, the granularity of this timer.
	 * @return the tick duration
	 */
	public Duration tickDuration() {
		return this.options.tickDuration();
	}

	/**
	 * Return the options this timer was created with.
	 * @return the options
	 */
	public WheelTimerOptions options() {
		return this.options;
	}

	@Override
	public String toString() {
		return "WheelTimer[tickDuration=" + tickDuration() + ", wheelSize=" + this.buckets.length + ", stripes="
				+ this.stripes.length + ", pendingTimeouts=" + pendingTimeouts() + "]";
	}

	/**
	 * Process every tick that is due according to the ticker: the worker's job, also
	 * called directly by tests of timers {@link #withoutWorker created without a worker}.
	 */
	void advance() {
		if (this.lifecycle == STOPPED) {
			return;
		}
		this.tickingThread = Thread.currentThread();
		try {
			processDueTicks();
		}
		finally {
			this.tickingThread = null;
		}
	}

	/**
	 * Count the entries still referenced by the wheel and the hand-over stacks, including
	 * cancelled ones not yet dropped. For tests; must be called by the ticking thread or
	 * while nothing ticks.
	 * @return the number of retained entries
	 */
	int retainedTimeouts() {
		int retained = 0;
		for (WheelTimeout head : this.buckets) {
			for (WheelTimeout timeout = head; timeout != null; timeout = timeout.next) {
				retained++;
			}
		}
		for (Stripe stripe : this.stripes) {
			for (WheelTimeout timeout = stripe.queued; timeout != null; timeout = timeout.next) {
				retained++;
			}
		}
		return retained;
	}

	static int liveInstances() {
		return liveInstances.get();
	}

	/**
	 * Return the number of ticks the worker thread has processed. For tests.
	 * @return the ticks processed by the worker
	 */
	long workerTicks() {
		return this.workerTicks;
	}

	/**
	 * Return whether the worker is parked beyond the next tick. For tests.
	 * @return whether the worker sleeps
	 */
	boolean isWorkerSleeping() {
		return this.workerSleeping;
	}

	/**
	 * Account for a timeout cancelled by {@link WheelTimeout#cancel()}.
	 * @param timeout the cancelled timeout
	 * @param linked whether the worker had already linked it into a bucket
	 */
	void onCancelled(WheelTimeout timeout, boolean linked) {
		Stripe stripe = stripeOfCurrentThread();
		stripe.addRemoved(1);
		if (linked) {
			stripe.pushCancelled(timeout);
		}
		notifyCancelled(timeout);
	}

	/**
	 * Run the task of an expired timeout, logging whatever it throws.
	 * @param timeout the expired timeout
	 */
	void runTask(WheelTimeout timeout) {
		try {
			timeout.task().run(timeout);
		}
		catch (Throwable ex) {
			logger.warn("An exception was thrown by " + TimerTask.class.getSimpleName() + " " + timeout.task(), ex);
		}
	}

	private void start() {
		if (LIFECYCLE.compareAndSet(this, NOT_STARTED, STARTED)) {
			Objects.requireNonNull(this.worker).start();
		}
		else if (this.lifecycle == STOPPED) {
			throw stoppedException();
		}
	}

	private static IllegalStateException stoppedException() {
		return new IllegalStateException("Cannot schedule a timeout: this WheelTimer has been stopped");
	}

	private Stripe stripeOfCurrentThread() {
		long id = Thread.currentThread().getId();
		// Fibonacci hashing spreads the sequential thread ids over the stripes.
		return this.stripes[(int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & this.stripeMask];
	}

	private void reservePendingSlot(Stripe stripe) {
		if (stripe.incrementAdded() > stripe.addedLimit) {
			checkPendingLimit(stripe);
		}
	}

	/**
	 * Check the limit precisely once the stripe has used up its share.
	 * {@link #pendingTimeouts()} may count too few under contention but never too many,
	 * so a timer far below its limit never rejects; the price is that threads racing here
	 * may overshoot the limit by one timeout each.
	 */
	private void checkPendingLimit(Stripe stripe) {
		if (pendingTimeouts() > this.maxPendingTimeouts) {
			stripe.addRemoved(1);
			throw new RejectedExecutionException("Cannot schedule a timeout: " + this.maxPendingTimeouts
					+ " timeouts are pending, the limit set by WheelTimerOptions.maxPendingTimeouts. Raise that limit"
					+ " if so many commands are legitimately in flight, otherwise look for timeouts that are never"
					+ " cancelled.");
		}
	}

	private long deadlineAfter(long delayNanos) {
		long now = elapsedNanos();
		if (delayNanos <= 0) {
			return now;
		}
		return (delayNanos > Long.MAX_VALUE - now) ? Long.MAX_VALUE : now + delayNanos;
	}

	private long elapsedNanos() {
		return Math.max(0, this.ticker.nanoTime() - this.origin);
	}

	private void rollBack(WheelTimeout timeout, Stripe stripe) {
		if (timeout.cancelQuietly()) {
			stripe.addRemoved(1);
		}
		throw stoppedException();
	}

	private void notifyCancelled(WheelTimeout timeout) {
		try {
			timeout.task().cancelled(timeout);
		}
		catch (Throwable ex) {
			logger.warn("An exception was thrown by " + TimerTask.class.getSimpleName() + ".cancelled() of "
					+ timeout.task(), ex);
		}
	}

	private void runWorker() {
		this.lastTick = elapsedNanos() / this.tickNanos;
		try {
			while (awaitTick(this.lastTick + 1)) {
				advance();
				this.workerTicks++;
				if (this.quietTick) {
					sleepUntilNeeded();
				}
			}
		}
		catch (Throwable ex) {
			logger.error("WheelTimer worker failed; timeouts of this timer will no longer expire", ex);
			throw ex;
		}
	}

	private void wakeWorker() {
		Thread worker = this.worker;
		if (worker != null && WORKER_SLEEPING.compareAndSet(this, true, false)) {
			LockSupport.unpark(worker);
		}
	}

	// A task without delay (Lettuce's first reconnect attempt, for one) would otherwise
	// wait up to a tick. Rare, so an unpark each is cheap; the worker that is between
	// ticks wakes and runs it, one that is processing a tick sees the flag afterwards.
	private void wakeWorkerNow() {
		this.dueNow = true;
		WORKER_SLEEPING.compareAndSet(this, true, false);
		Thread worker = this.worker;
		if (worker != null) {
			LockSupport.unpark(worker);
		}
	}

	/**
	 * After a tick in which nothing was scheduled, sleep until the earliest deadline in
	 * the wheel, indefinitely if it is empty, or until a producer schedules a timeout: an
	 * idle timer costs no wake-ups, a busy one ticks as usual. Timeouts cancelled in the
	 * wheel meanwhile are unlinked when the worker wakes.
	 */
	private void sleepUntilNeeded() {
		WORKER_SLEEPING.setVolatile(this, true);
		// A producer that pushed before the flag was set may have missed it: look at the
		// stacks once more.
		if (anyQueued()) {
			WORKER_SLEEPING.compareAndSet(this, true, false);
			return;
		}
		long wakeTick = earliestDeadlineTick();
		while (this.workerSleeping && this.lifecycle != STOPPED) {
			if (wakeTick == Long.MAX_VALUE) {
				LockSupport.park(this);
				continue;
			}
			long remaining = wakeTick * this.tickNanos - elapsedNanos();
			if (remaining <= 0) {
				break;
			}
			LockSupport.parkNanos(this, remaining);
		}
		WORKER_SLEEPING.compareAndSet(this, true, false);
	}

	private boolean anyQueued() {
		for (Stripe stripe : this.stripes) {
			if (stripe.queued != null) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Return the tick of the earliest deadline linked into the wheel, or
	 * {@code Long.MAX_VALUE} when none is. Walks the wheel, which only happens when the
	 * worker is about to sleep after a tick without new timeouts.
	 */
	private long earliestDeadlineTick() {
		if (this.linkedCount == 0) {
			return Long.MAX_VALUE;
		}
		long earliest = Long.MAX_VALUE;
		for (WheelTimeout head : this.buckets) {
			for (WheelTimeout timeout = head; timeout != null; timeout = timeout.next) {
				if (timeout.state() != WheelTimeout.CANCELLED) {
					earliest = Math.min(earliest, tickOf(timeout.deadline));
				}
			}
		}
		// A deadline near Long.MAX_VALUE nanoseconds: wake once per revolution rather
		// than overflow.
		return (earliest > Long.MAX_VALUE / this.tickNanos) ? this.lastTick + this.buckets.length : earliest;
	}

	/**
	 * Sleep until the given tick has begun, or a timeout without delay was scheduled.
	 * @param tick the tick to wait for
	 * @return {@code false} if the timer was stopped meanwhile
	 */
	private boolean awaitTick(long tick) {
		long tickStart = tick * this.tickNanos;
		for (;;) {
			if (this.lifecycle == STOPPED) {
				return false;
			}
			if (this.dueNow) {
				this.dueNow = false;
				return true;
			}
			long remaining = tickStart - elapsedNanos();
			if (remaining <= 0) {
				return true;
			}
			LockSupport.parkNanos(this, remaining);
		}
	}

	private void processDueTicks() {
		long now = elapsedNanos();
		long dueTick = now / this.tickNanos;
		unlinkCancelled();
		// After a long pause, one revolution visits every bucket; the due check below
		// catches all overdue entries.
		long firstTick = Math.max(this.lastTick + 1, dueTick - this.bucketMask);
		int claimedBefore = this.expiredBatchSize;
		this.quietTick = linkQueued(firstTick, now) == 0;
		int expired = this.expiredBatchSize - claimedBefore;
		for (long tick = firstTick; tick <= dueTick; tick++) {
			expired += expireBucket((int) (tick & this.bucketMask), dueTick);
		}
		if (dueTick > this.lastTick) {
			this.lastTick = dueTick;
		}
		if (expired > 0) {
			this.expiredCount += expired;
		}
		refreshPendingAllowances();
		runExpired();
	}

	private void unlinkCancelled() {
		for (Stripe stripe : this.stripes) {
			WheelTimeout timeout = stripe.takeCancelled();
			while (timeout != null) {
				WheelTimeout next = timeout.nextCancelled;
				timeout.nextCancelled = null;
				if (timeout.isLinked()) {
					unlink(timeout);
				}
				timeout = next;
			}
		}
	}

	/**
	 * Move the timeouts scheduled since the last tick into the wheel, dropping those
	 * already cancelled and claiming those already due into the expired batch.
	 * @param firstTick the earliest tick still to be processed
	 * @param now the time of this pass
	 * @return the number of timeouts taken from the stacks, cancelled ones included
	 */
	private int linkQueued(long firstTick, long now) {
		int taken = 0;
		for (Stripe stripe : this.stripes) {
			WheelTimeout timeout = stripe.takeQueued();
			while (timeout != null) {
				taken++;
				WheelTimeout next = timeout.next;
				timeout.next = null;
				// Reading the state first drops cancelled entries without a
				// compare-and-set.
				if (timeout.state() == WheelTimeout.QUEUED && timeout.markScheduled()) {
					if (timeout.deadline > now) {
						link(timeout, Math.max(firstTick, tickOf(timeout.deadline)));
					}
					else if (timeout.markExpired()) {
						addToExpiredBatch(timeout);
					}
				}
				timeout = next;
			}
		}
		return taken;
	}

	/**
	 * Return the first tick that starts at or after the deadline, so that no timeout
	 * fires early.
	 */
	private long tickOf(long deadline) {
		return (deadline <= 0) ? 0 : (deadline - 1) / this.tickNanos + 1;
	}

	private void link(WheelTimeout timeout, long tick) {
		int index = (int) (tick & this.bucketMask);
		WheelTimeout head = this.buckets[index];
		timeout.bucket = index;
		this.linkedCount++;
		timeout.next = head;
		if (head != null) {
			head.prev = timeout;
		}
		this.buckets[index] = timeout;
	}

	private void unlink(WheelTimeout timeout) {
		WheelTimeout prev = timeout.prev;
		WheelTimeout next = timeout.next;
		if (prev == null) {
			this.buckets[timeout.bucket] = next;
		}
		else {
			prev.next = next;
		}
		if (next != null) {
			next.prev = prev;
		}
		timeout.prev = null;
		timeout.next = null;
		timeout.bucket = WheelTimeout.NO_BUCKET;
		this.linkedCount--;
	}

	/**
	 * Walk one bucket: unlink cancelled entries and claim the due ones into the expired
	 * batch.
	 * @return the number of timeouts claimed
	 */
	private int expireBucket(int index, long dueTick) {
		int expired = 0;
		WheelTimeout timeout = this.buckets[index];
		while (timeout != null) {
			WheelTimeout next = timeout.next;
			if (timeout.state() == WheelTimeout.CANCELLED) {
				unlink(timeout);
			}
			else if (tickOf(timeout.deadline) <= dueTick) {
				unlink(timeout);
				if (timeout.markExpired()) {
					addToExpiredBatch(timeout);
					expired++;
				}
			}
			timeout = next;
		}
		return expired;
	}

	private void addToExpiredBatch(WheelTimeout timeout) {
		if (this.expiredBatchSize == this.expiredBatch.length) {
			this.expiredBatch = Arrays.copyOf(this.expiredBatch, this.expiredBatchSize * 2);
		}
		this.expiredBatch[this.expiredBatchSize++] = timeout;
	}

	private void runExpired() {
		int size = this.expiredBatchSize;
		if (size == 0) {
			return;
		}
		WheelTimeout[] batch = this.expiredBatch;
		if (!isSortedByDeadline(batch, size)) {
			Arrays.sort(batch, 0, size, BY_DEADLINE);
		}
		this.expiredBatchSize = 0;
		for (int i = 0; i < size; i++) {
			WheelTimeout timeout = batch[i];
			batch[i] = null;
			dispatch(timeout);
		}
		if (batch.length > MAX_RETAINED_BATCH_CAPACITY) {
			// A burst of expiries must not pin a huge array for the lifetime of the
			// timer.
			this.expiredBatch = new WheelTimeout[INITIAL_BATCH_CAPACITY];
		}
	}

	private static boolean isSortedByDeadline(WheelTimeout[] batch, int size) {
		for (int i = 1; i < size; i++) {
			if (batch[i - 1].deadline > batch[i].deadline) {
				return false;
			}
		}
		return true;
	}

	private void dispatch(WheelTimeout timeout) {
		Executor executor = this.taskExecutor;
		if (executor == null) {
			runTask(timeout);
			return;
		}
		try {
			executor.execute(timeout);
		}
		catch (Throwable ex) {
			logger.warn("Task executor " + executor + " rejected expired " + timeout, ex);
		}
	}

	/**
	 * Grant each stripe an equal share of the headroom below the pending limit, so
	 * producers only sum all stripes once their stripe's share is used up. Unlike
	 * {@link #pendingTimeouts()}, removals are read before additions: the count may then
	 * only be too high, which makes the shares smaller, never too generous.
	 */
	private void refreshPendingAllowances() {
		long removed = 0;
		for (Stripe stripe : this.stripes) {
			removed += stripe.removed;
		}
		long added = 0;
		for (int i = 0; i < this.stripes.length; i++) {
			this.addedSnapshot[i] = this.stripes[i].added;
			added += this.addedSnapshot[i];
		}
		long pending = added - removed - this.expiredCount;
		long share = Math.max(0, this.maxPendingTimeouts - pending) / this.stripes.length;
		for (int i = 0; i < this.stripes.length; i++) {
			this.stripes[i].addedLimit = saturatedAdd(this.addedSnapshot[i], share);
		}
	}

	private static long saturatedAdd(long a, long b) {
		long sum = a + b;
		return (sum < a) ? Long.MAX_VALUE : sum;
	}

	private Set<Timeout> cancelUnprocessed() {
		Set<Timeout> unprocessed = new HashSet<>();
		this.linkedCount = 0;
		for (int i = 0; i < this.buckets.length; i++) {
			WheelTimeout timeout = this.buckets[i];
			this.buckets[i] = null;
			while (timeout != null) {
				WheelTimeout next = timeout.next;
				timeout.next = null;
				timeout.prev = null;
				timeout.bucket = WheelTimeout.NO_BUCKET;
				cancelInto(unprocessed, timeout);
				timeout = next;
			}
		}
		for (Stripe stripe : this.stripes) {
			stripe.takeCancelled();
			WheelTimeout timeout = stripe.takeQueued();
			while (timeout != null) {
				WheelTimeout next = timeout.next;
				timeout.next = null;
				cancelInto(unprocessed, timeout);
				timeout = next;
			}
		}
		if (!unprocessed.isEmpty()) {
			stripeOfCurrentThread().addRemoved(unprocessed.size());
		}
		return Collections.unmodifiableSet(unprocessed);
	}

	private static void cancelInto(Set<Timeout> unprocessed, WheelTimeout timeout) {
		if (timeout.cancelQuietly()) {
			unprocessed.add(timeout);
		}
	}

	private static void awaitTermination(Thread worker) {
		boolean interrupted = false;
		while (worker.isAlive()) {
			LockSupport.unpark(worker);
			try {
				worker.join(100);
			}
			catch (InterruptedException ex) {
				interrupted = true;
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

	private Thread newWorkerThread(WheelTimerOptions options) {
		ThreadFactory threadFactory = options.threadFactory();
		if (threadFactory != null) {
			return threadFactory.newThread(this::runWorker);
		}
		Thread thread = new Thread(this::runWorker, options.threadName());
		thread.setDaemon(true);
		return thread;
	}

	private static int stripeCount(int availableProcessors) {
		// Several stripes per processor keep two running threads from sharing one stripe
		// most of the time.
		int wanted = Math.min(MAX_STRIPES, Math.max(1, availableProcessors) * 4);
		return Integer.highestOneBit(wanted - 1) << 1;
	}

	private static Stripe[] createStripes(int count, long maxPendingTimeouts) {
		Stripe[] stripes = new Stripe[count];
		for (int i = 0; i < count; i++) {
			stripes[i] = new Stripe(maxPendingTimeouts / count);
		}
		return stripes;
	}

	private static void countInstance() {
		int live = liveInstances.incrementAndGet();
		if (live > INSTANCE_COUNT_WARNING_THRESHOLD && warnedAboutInstances.compareAndSet(false, true)) {
			logger.warn(live + " WheelTimer instances are alive. A WheelTimer owns a thread and is meant to be shared:"
					+ " create one per ClientResources, not per connection or per command, and stop() those you no"
					+ " longer need.");
		}
	}

	/**
	 * Padding that keeps a stripe's hot fields off the cache line of whatever precedes
	 * it.
	 */
	@SuppressWarnings("unused")
	static class StripeLeftPadding {

		long p01, p02, p03, p04, p05, p06, p07, p08;

	}

	/**
	 * The hot fields of a stripe: its hand-over stacks and pending counters.
	 */
	static class StripeFields extends StripeLeftPadding {

		/**
		 * Stack of timeouts scheduled since the worker last took it, linked through
		 * {@link WheelTimeout#next}.
		 */
		volatile @Nullable WheelTimeout queued;

		/**
		 * Stack of timeouts cancelled while in a bucket, linked through
		 * {@link WheelTimeout#nextCancelled}.
		 */
		volatile @Nullable WheelTimeout cancelled;

		/**
		 * Timeouts scheduled by the threads of this stripe; only grows.
		 */
		volatile long added;

		/**
		 * Timeouts cancelled by the threads of this stripe, or rejected or rolled back;
		 * only grows.
		 */
		volatile long removed;

		/**
		 * Value of {@link #added} up to which producers may skip summing all stripes; set
		 * by the worker.
		 */
		volatile long addedLimit;

	}

	/**
	 * One producer stripe, padded on both sides against false sharing.
	 */
	@SuppressWarnings("unused")
	static final class Stripe extends StripeFields {

		private static final VarHandle QUEUED;

		private static final VarHandle CANCELLED;

		private static final VarHandle ADDED;

		private static final VarHandle REMOVED;

		static {
			try {
				MethodHandles.Lookup lookup = MethodHandles.lookup();
				QUEUED = lookup.findVarHandle(StripeFields.class, "queued", WheelTimeout.class);
				CANCELLED = lookup.findVarHandle(StripeFields.class, "cancelled", WheelTimeout.class);
				ADDED = lookup.findVarHandle(StripeFields.class, "added", long.class);
				REMOVED = lookup.findVarHandle(StripeFields.class, "removed", long.class);
			}
			catch (ReflectiveOperationException ex) {
				throw new ExceptionInInitializerError(ex);
			}
		}

		long p11, p12, p13, p14, p15, p16, p17, p18;

		Stripe(long addedLimit) {
			this.addedLimit = addedLimit;
		}

		void pushQueued(WheelTimeout timeout) {
			WheelTimeout head;
			do {
				head = this.queued;
				timeout.next = head;
			}
			while (!QUEUED.compareAndSet(this, head, timeout));
		}

		@Nullable WheelTimeout takeQueued() {
			return (this.queued != null) ? (WheelTimeout) QUEUED.getAndSet(this, null) : null;
		}

		void pushCancelled(WheelTimeout timeout) {
			WheelTimeout head;
			do {
				head = this.cancelled;
				timeout.nextCancelled = head;
			}
			while (!CANCELLED.compareAndSet(this, head, timeout));
		}

		@Nullable WheelTimeout takeCancelled() {
			return (this.cancelled != null) ? (WheelTimeout) CANCELLED.getAndSet(this, null) : null;
		}

		long incrementAdded() {
			return (long) ADDED.getAndAdd(this, 1L) + 1;
		}

		void addRemoved(long count) {
			REMOVED.getAndAdd(this, count);
		}

	}

}
