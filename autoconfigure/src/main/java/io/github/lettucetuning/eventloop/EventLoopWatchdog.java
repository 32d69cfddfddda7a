package io.github.lettucetuning.eventloop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.github.lettucetuning.timeout.WheelTimer;
import io.github.lettucetuning.timeout.WheelTimerOptions;
import io.netty.util.Timer;
import io.netty.util.concurrent.EventExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Notices an event loop of the client that does not run while commands wait on its
 * connections, from a thread that is not an event loop (a Netty {@link Timer}'s), and
 * says so: one WARN per spell, with the blocked thread's stack, how long it has not run
 * and how many commands wait; one INFO line when it runs again. A spell in which the
 * timer's thread did not run either is the whole process pausing (a long
 * garbage-collection pause, CPU throttling, a stopped process): it is logged as such, and
 * blames no loop, and is counted and logged once however many loops it held. A loop
 * decoding a large reply is told apart from code of the application by the innermost
 * frames of its stack, and the WARN says so. Nor is a saturated loop blamed, one that
 * keeps writing and reading while a backlog of tasks holds the probe (see
 * {@link LoopWatch}).
 * <p>
 * Nothing runs while no command waits: see {@link LoopWatch}. While commands wait, each
 * loop gets one probe task per half threshold.
 *
 * @since 0.2.0
 */
public final class EventLoopWatchdog implements AutoCloseable {

	/**
	 * The name of the thread of the watchdog's own timer.
	 */
	public static final String TIMER_THREAD_NAME = "lettuce-tuning-watchdog";

	private static final Log logger = LogFactory.getLog(EventLoopWatchdog.class);

	private final Duration threshold;

	private final Supplier<? extends @Nullable Timer> timer;

	private final boolean ownsTimer;

	private final Map<EventExecutor, LoopWatch> watches = new ConcurrentHashMap<>();

	private final AtomicLong blockedSpells = new AtomicLong();

	private final AtomicLong pauses = new AtomicLong();

	// When the last pause counted ended, on System.nanoTime()'s clock.
	private final AtomicLong pauseEndNanos = new AtomicLong(System.nanoTime());

	private volatile @Nullable BlockedEventLoop lastBlocked;

	private final AtomicReference<@Nullable Timer> resolvedTimer = new AtomicReference<>();

	private volatile boolean closed;

	/**
	 * Create a watchdog with a timer of its own, started on first use and stopped by
	 * {@link #close()}.
	 * @param threshold how long a loop may not run while commands wait before it counts
	 * as blocked
	 */
	public EventLoopWatchdog(Duration threshold) {
		this(threshold, EventLoopWatchdog::ownTimer, true);
	}

	/**
	 * Create a watchdog that checks the loops from a timer someone else owns and stops.
	 * @param threshold how long a loop may not run while commands wait before it counts
	 * as blocked
	 * @param timer the timer whose thread checks the loops, asked for on first use
	 */
	public EventLoopWatchdog(Duration threshold, Supplier<? extends @Nullable Timer> timer) {
		this(threshold, timer, false);
	}

	private EventLoopWatchdog(Duration threshold, Supplier<? extends @Nullable Timer> timer, boolean ownsTimer) {
		if (threshold.isNegative() || threshold.isZero()) {
			throw new IllegalArgumentException("threshold must be positive, was " + threshold);
		}
		this.threshold = threshold;
		this.timer = timer;
		this.ownsTimer = ownsTimer;
	}

	private static Timer ownTimer() {
		return new WheelTimer(WheelTimerOptions.builder().threadName(TIMER_THREAD_NAME).build());
	}

	/**
	 * Return the watch over an event loop, created on first call.
	 * @param loop the event loop
	 * @return its watch
	 */
	public LoopWatch watch(EventExecutor loop) {
		return this.watches.computeIfAbsent(loop, (key) -> new LoopWatch(this, key));
	}

	/**
	 * Return how long a loop may not run while commands wait before it counts as blocked.
	 * @return the threshold
	 */
	public Duration threshold() {
		return this.threshold;
	}

	/**
	 * Return the loops blocked now, longest first.
	 * @return the spells under way
	 */
	public List<BlockedEventLoop> blockedNow() {
		List<BlockedEventLoop> blocked = new ArrayList<>();
		for (LoopWatch watch : this.watches.values()) {
			BlockedEventLoop spell = watch.blockedNow();
			if (spell != null) {
				blocked.add(spell);
			}
		}
		blocked.sort(Comparator.comparing(BlockedEventLoop::since));
		return blocked;
	}

	/**
	 * Return the loops blocked now, after waiting at most one threshold and a half for
	 * the loops that have left a probe unrun for a while to be found blocked or to run
	 * it: a spell may have started just before the call. Returns at once when no loop is
	 * that quiet, as when Redis is down and the loops run.
	 * @return the spells under way, longest first
	 * @throws InterruptedException if interrupted while waiting
	 */
	public List<BlockedEventLoop> blockedNowOrSoon() throws InterruptedException {
		// A tick finds a spell up to one period after its threshold has passed.
		long deadline = System.nanoTime() + thresholdNanos() + periodNanos();
		long quiet = periodNanos() / 2;
		while (true) {
			List<BlockedEventLoop> blocked = blockedNow();
			if (!blocked.isEmpty() || System.nanoTime() >= deadline
					|| this.watches.values().stream().noneMatch((watch) -> watch.quiet(quiet))) {
				return blocked;
			}
			Thread.sleep(10);
		}
	}

	/**
	 * Return how many times a loop was found blocked since startup.
	 * @return the spells noticed
	 */
	public long blockedSpells() {
		return this.blockedSpells.get();
	}

	/**
	 * Return the last spell that ended.
	 * @return the spell, or {@code null} if none ended yet
	 */
	public @Nullable BlockedEventLoop lastBlocked() {
		return this.lastBlocked;
	}

	/**
	 * Return how many times the whole process was found paused while commands waited.
	 * @return the pauses noticed
	 */
	public long pauses() {
		return this.pauses.get();
	}

	/**
	 * Stop scheduling checks, and the timer if it is the watchdog's own; checks already
	 * scheduled end without effect.
	 */
	@Override
	public void close() {
		this.closed = true;
		stopOwnTimer();
	}

	private void stopOwnTimer() {
		stopIfOwned(this.resolvedTimer.get());
	}

	long thresholdNanos() {
		return this.threshold.toNanos();
	}

	long periodNanos() {
		return this.threshold.toNanos() / 2;
	}

	boolean schedule(LoopWatch watch, long delayNanos) {
		if (this.closed) {
			return false;
		}
		try {
			Timer timer = timer();
			if (timer == null) {
				return false;
			}
			timer.newTimeout((timeout) -> {
				if (!this.closed) {
					watch.tick();
				}
			}, delayNanos, TimeUnit.NANOSECONDS);
			return true;
		}
		catch (IllegalStateException | RejectedExecutionException ex) {
			// The timer has stopped: the client is shutting down.
			return false;
		}
	}

	private @Nullable Timer timer() {
		Timer timer = this.resolvedTimer.get();
		if (timer != null) {
			return timer;
		}
		Timer created = this.timer.get();
		if (created == null) {
			return null;
		}
		if (!this.resolvedTimer.compareAndSet(null, created)) {
			stopIfOwned(created);
			return this.resolvedTimer.get();
		}
		// Closed while the timer was being created: stop it, nothing else will.
		if (this.closed) {
			stopOwnTimer();
			return null;
		}
		return created;
	}

	private void stopIfOwned(@Nullable Timer timer) {
		if (this.ownsTimer && timer != null) {
			timer.stop();
		}
	}

	void blockStarted(BlockedEventLoop blocked, StackTraceElement[] stack) {
		this.blockedSpells.incrementAndGet();
		if (!logger.isWarnEnabled()) {
			return;
		}
		String output = BlockedStack.decoding(stack);
		String waiting = "while " + blocked.waitingCommands() + " commands wait for replies on its connections"
				+ ((blocked.queuedTasks() > 0) ? " and " + blocked.queuedTasks()
						+ " tasks wait in its queue (commands callers handed it that it has not written yet among them)"
						: "");
		String message = (output != null) ? decodingMessage(blocked, waiting, output)
				: applicationMessage(blocked, waiting, stack);
		logger.warn(message, new BlockedStack(blocked.thread(), stack));
	}

	// The loop does the client's own work: the reply is too large to decode in one go
	// without holding every other connection of the loop.
	private static String decodingMessage(BlockedEventLoop blocked, String waiting, String output) {
		return "Lettuce event loop " + blocked.thread() + " has not run other work for " + seconds(blocked.duration())
				+ " " + waiting + ": it is decoding a large Redis reply"
				+ (output.isEmpty() ? "" : " (into " + output + ")") + ", at " + blocked.blockedAt()
				+ ". Every command on this thread's connections waits until the whole reply "
				+ "is decoded; Redis answered, the reply is just large. Ask for smaller replies: HSCAN, SSCAN, ZSCAN "
				+ "or SCAN with a COUNT instead of HGETALL, SMEMBERS, ZRANGE 0 -1 or KEYS; LRANGE in pages instead of "
				+ "LRANGE 0 -1; or split large values into smaller keys.";
	}

	private static String applicationMessage(BlockedEventLoop blocked, String waiting, StackTraceElement[] stack) {
		String cause = BlockedStack.awaitsRedisReply(stack)
				? " It waits for a Redis reply that only this thread can read: a synchronous Redis call made on the "
						+ "event loop, which ends only when the command times out."
				: "";
		return "Lettuce event loop " + blocked.thread() + " has not run for " + seconds(blocked.duration()) + " "
				+ waiting + ": code running on it blocks it, at " + blocked.blockedAt() + "." + cause
				+ " Every command on this thread's connections waits until it returns; Redis is not at fault. "
				+ "Move blocking work off the event loop (publishOn(Schedulers.boundedElastic()) before it, or the "
				+ "reactive API instead of a synchronous call).";
	}

	void blockEnded(BlockedEventLoop blocked) {
		this.lastBlocked = blocked;
		if (logger.isInfoEnabled()) {
			logger.info("Lettuce event loop " + blocked.thread() + " runs again after " + seconds(blocked.duration())
					+ " blocked at " + blocked.blockedAt());
		}
	}

	// Every busy loop's tick comes late after one pause: the first to report it counts
	// it, and a tick that was due before the counted pause ended is part of it.
	void paused(long dueNanos, long nowNanos) {
		long end = this.pauseEndNanos.get();
		if (dueNanos - end < 0 || !this.pauseEndNanos.compareAndSet(end, nowNanos)) {
			return;
		}
		this.pauses.incrementAndGet();
		if (logger.isWarnEnabled()) {
			int waiting = 0;
			for (LoopWatch watch : this.watches.values()) {
				waiting += watch.waitingCommands();
			}
			// Counted after the pause: the loops may have read the replies already.
			logger.warn("The JVM did not run for about " + seconds(Duration.ofNanos(nowNanos - dueNanos))
					+ ((waiting > 0) ? " while " + waiting + " commands waited for Redis replies" : "")
					+ " (a long garbage-collection pause, CPU throttling, or a stopped process): lettuce-tuning's "
					+ "watchdog ran that late. Commands were delayed by the pause, not by Redis.");
		}
	}

	static String seconds(Duration duration) {
		return String.format(Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
	}

}
