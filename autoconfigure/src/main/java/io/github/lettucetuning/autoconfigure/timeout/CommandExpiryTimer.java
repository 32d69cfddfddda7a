package io.github.lettucetuning.autoconfigure.timeout;

import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;

/**
 * The timer that expires Lettuce commands, with who owns it. Lettuce never stops a timer
 * it is given, so an owned timer is stopped here, and because the client resources depend
 * on this bean, only after they have shut down. A timer the user supplied is shared and
 * never stopped. The timer is created on first use, so a context whose client resources
 * come from elsewhere starts no timer thread.
 *
 * @since 0.1.0
 */
public final class CommandExpiryTimer implements DisposableBean {

	private final @Nullable Supplier<Timer> factory;

	private final boolean owned;

	private volatile @Nullable Timer timer;

	// Not a monitor: the first call may come from a virtual thread.
	private final ReentrantLock lock = new ReentrantLock();

	private CommandExpiryTimer(@Nullable Supplier<Timer> factory, @Nullable Timer timer, boolean owned) {
		this.factory = factory;
		this.timer = timer;
		this.owned = owned;
	}

	/**
	 * A timer created on first use and stopped on shutdown.
	 * @param factory creates the timer
	 * @return the holder
	 */
	public static CommandExpiryTimer owned(Supplier<Timer> factory) {
		return new CommandExpiryTimer(factory, null, true);
	}

	/**
	 * A timer someone else owns and stops.
	 * @param timer the shared timer
	 * @return the holder
	 */
	public static CommandExpiryTimer shared(Timer timer) {
		return new CommandExpiryTimer(null, timer, false);
	}

	/**
	 * No timer of ours: Lettuce creates and owns its stock timer.
	 * @return the holder
	 */
	public static CommandExpiryTimer lettuceDefault() {
		return new CommandExpiryTimer(null, null, false);
	}

	/**
	 * Return the timer, creating an owned one on first call.
	 * @return the timer, or {@code null} to let Lettuce create its own
	 */
	public @Nullable Timer timer() {
		Timer current = this.timer;
		if (current == null && this.factory != null) {
			this.lock.lock();
			try {
				current = this.timer;
				if (current == null) {
					current = this.factory.get();
					this.timer = current;
				}
			}
			finally {
				this.lock.unlock();
			}
		}
		return current;
	}

	/**
	 * Return the timer if it exists already, without creating it.
	 * @return the timer or {@code null}
	 */
	public @Nullable Timer currentTimer() {
		return this.timer;
	}

	/**
	 * Return whether the timer is ours to stop.
	 * @return whether the timer is owned
	 */
	public boolean isOwned() {
		return this.owned;
	}

	@Override
	public void destroy() {
		Timer current = this.timer;
		if (this.owned && current != null) {
			current.stop();
		}
	}

}
