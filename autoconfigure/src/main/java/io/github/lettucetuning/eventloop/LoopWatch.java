package io.github.lettucetuning.eventloop;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import org.jspecify.annotations.Nullable;

/**
 * The {@link EventLoopWatchdog}'s watch over one event loop. While commands wait on the
 * loop's connections, the watchdog's timer hands the loop a probe every half threshold; a
 * probe that has not run a threshold after the loop last ran means the loop is blocked. A
 * probe that finds no command waiting puts the watch to rest, and the next command
 * written wakes it: an idle loop costs nothing.
 * <p>
 * A saturated loop is not a blocked one: with thousands of commands handed to it, the
 * probe can wait in its task queue longer than the threshold while the loop writes and
 * reads all the time. Only the loop changes how many commands wait on its connections, so
 * a count that moved between two ticks shows that it runs; the threshold counts from the
 * last such sign of life too. This costs the loop nothing: the timer reads the counts.
 * <p>
 * Resting and waking both happen on the loop itself, so they never race; the timer only
 * stops ticking once it sees the watch at rest, and checks again after it stopped, so a
 * command written at that moment either sees the timer still ticking or restarts it.
 *
 * @since 0.2.0
 */
public final class LoopWatch implements Runnable {

	private static final int NO_PROBE = 0;

	private static final int PROBE_SENT = 1;

	private static final int BLOCKED = 2;

	private final EventLoopWatchdog watchdog;

	private final EventExecutor loop;

	private final Set<Connection> connections = new CopyOnWriteArraySet<>();

	private final AtomicBoolean ticking = new AtomicBoolean();

	private final AtomicInteger probe = new AtomicInteger(NO_PROBE);

	// Written on the loop only.
	private volatile boolean armed;

	private volatile @Nullable Thread thread;

	// When the loop last showed that it runs: it ran a probe, woke the watch, or moved
	// its
	// waiting count between two ticks.
	private volatile long aliveNanos;

	private volatile long blockedSinceNanos;

	private volatile @Nullable BlockedEventLoop blocked;

	private volatile long tickDueNanos;

	// Read and written on the watchdog's timer only.
	private int sampledWaiting;

	LoopWatch(EventLoopWatchdog watchdog, EventExecutor loop) {
		this.watchdog = watchdog;
		this.loop = loop;
	}

	/**
	 * Count a connection's waiting commands as the loop's, until it is removed.
	 * @param connection the connection, served by this loop
	 */
	public void add(Connection connection) {
		this.connections.add(connection);
	}

	/**
	 * Stop counting a connection.
	 * @param connection the connection
	 */
	public void remove(Connection connection) {
		this.connections.remove(connection);
	}

	/**
	 * Called on the event loop after a command was written: wakes the watch if it rests.
	 * Costs one volatile read otherwise.
	 */
	public void commandWritten() {
		if (!this.armed) {
			wake();
		}
	}

	private void wake() {
		this.thread = Thread.currentThread();
		this.aliveNanos = System.nanoTime();
		this.armed = true;
		if (this.ticking.compareAndSet(false, true)) {
			scheduleTick();
		}
	}

	private void scheduleTick() {
		long period = this.watchdog.periodNanos();
		this.tickDueNanos = System.nanoTime() + period;
		if (!this.watchdog.schedule(this, period)) {
			this.ticking.set(false);
		}
	}

	// On the watchdog's timer.
	void tick() {
		long now = System.nanoTime();
		long late = now - this.tickDueNanos;
		if (late >= this.watchdog.thresholdNanos()) {
			// The timer was held as long as the loop: the whole process did not run, and
			// the loop gets a full threshold from now to show that it runs.
			this.aliveNanos = now;
			this.watchdog.paused(now - late, now);
		}
		int probe = this.probe.get();
		if (probe != NO_PROBE) {
			boolean moved = waitingMoved(now);
			long alive = this.aliveNanos;
			if (probe == PROBE_SENT && now - alive >= this.watchdog.thresholdNanos()) {
				blockStarted(now, alive);
			}
			else if (probe == BLOCKED && moved) {
				runsAgain(now);
			}
			scheduleTick();
			return;
		}
		if (!this.armed) {
			this.ticking.set(false);
			if (!this.armed || !this.ticking.compareAndSet(false, true)) {
				return;
			}
		}
		sendProbe();
	}

	private boolean waitingMoved(long now) {
		int waiting = waitingCommands();
		if (waiting == this.sampledWaiting) {
			return false;
		}
		this.sampledWaiting = waiting;
		this.aliveNanos = now;
		return true;
	}

	// The loop works again but the probe still waits behind a backlog: the spell ends
	// now, not when the backlog is through. The probe stays queued; it ends no spell.
	private void runsAgain(long now) {
		BlockedEventLoop blocked = this.blocked;
		if (blocked != null && this.probe.compareAndSet(BLOCKED, PROBE_SENT)) {
			this.blocked = null;
			this.watchdog.blockEnded(blocked.lasting(Duration.ofNanos(now - this.blockedSinceNanos)));
		}
	}

	private void sendProbe() {
		this.sampledWaiting = waitingCommands();
		this.probe.set(PROBE_SENT);
		try {
			this.loop.execute(this);
		}
		catch (RejectedExecutionException ex) {
			// The loop shuts down: nothing left to watch.
			this.probe.set(NO_PROBE);
			this.ticking.set(false);
			return;
		}
		scheduleTick();
	}

	// The spell is published before the probe is marked blocked, so that the probe, if it
	// runs in between, finds no half-made spell: it either ends this one or was first.
	private void blockStarted(long now, long since) {
		Thread thread = this.thread;
		StackTraceElement[] stack = (thread != null) ? thread.getStackTrace() : new StackTraceElement[0];
		if (BlockedStack.idle(stack)) {
			// The stack came after the stretch ended: the loop waits for work, and the
			// probe, which woke it, runs next.
			return;
		}
		BlockedEventLoop blocked = new BlockedEventLoop(threadName(), instant(since), Duration.ofNanos(now - since),
				waitingCommands(), queuedTasks(), BlockedStack.blockedAt(stack));
		this.blockedSinceNanos = since;
		this.blocked = blocked;
		this.watchdog.blockStarted(blocked, stack);
		if (!this.probe.compareAndSet(PROBE_SENT, BLOCKED)) {
			// The loop ran the probe as the spell was reported: the spell is over.
			this.blocked = null;
			this.watchdog.blockEnded(blocked.lasting(Duration.ofNanos(this.aliveNanos - since)));
		}
	}

	/**
	 * The probe, run by the event loop.
	 */
	@Override
	public void run() {
		long now = System.nanoTime();
		this.aliveNanos = now;
		if (this.probe.getAndSet(NO_PROBE) == BLOCKED) {
			BlockedEventLoop blocked = this.blocked;
			this.blocked = null;
			if (blocked != null) {
				this.watchdog.blockEnded(blocked.lasting(Duration.ofNanos(now - this.blockedSinceNanos)));
			}
		}
		if (waitingCommands() == 0) {
			this.armed = false;
		}
	}

	/**
	 * Return the spell in which the loop is blocked now, if it is.
	 * @return the spell so far, or {@code null}
	 */
	@Nullable BlockedEventLoop blockedNow() {
		BlockedEventLoop blocked = this.blocked;
		if (blocked == null || this.probe.get() != BLOCKED) {
			return null;
		}
		return blocked.lasting(Duration.ofNanos(System.nanoTime() - this.blockedSinceNanos));
	}

	/**
	 * Return whether the loop has left a probe unrun for a while without having been
	 * found blocked yet: a spell that may be starting.
	 * @param quietNanos how long the probe must have waited
	 * @return whether the loop may be blocked
	 */
	boolean quiet(long quietNanos) {
		return this.probe.get() == PROBE_SENT && System.nanoTime() - this.aliveNanos >= quietNanos;
	}

	int waitingCommands() {
		int waiting = 0;
		for (Connection connection : this.connections) {
			waiting += connection.waitingCommands();
		}
		return waiting;
	}

	// Read once per spell, off the loop: a caller's write to a channel from outside the
	// loop is a task in this queue until the loop runs it. The probe is one of them.
	private int queuedTasks() {
		if (!(this.loop instanceof SingleThreadEventExecutor executor)) {
			return -1;
		}
		return Math.max(0, executor.pendingTasks() - 1);
	}

	private String threadName() {
		Thread thread = this.thread;
		return (thread != null) ? thread.getName() : String.valueOf(this.loop);
	}

	private static Instant instant(long nanos) {
		return Instant.now().minusNanos(System.nanoTime() - nanos);
	}

	/**
	 * A connection served by the loop, as the watch counts its waiting commands.
	 */
	public interface Connection {

		/**
		 * Return how many commands wait for a reply; read off the loop, so an estimate.
		 * @return the commands sent and not yet answered
		 */
		int waitingCommands();

	}

}
