package io.github.lettucetuning.timeout;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;

import org.jspecify.annotations.Nullable;

/**
 * Immutable configuration of a {@link WheelTimer}. Create instances through
 * {@link #builder()} or {@link #create()} and derive modified copies through
 * {@link #mutate()}.
 * <p>
 * Every builder method validates its argument eagerly and fails with an
 * {@link IllegalArgumentException} naming the option and the rejected value;
 * {@link Builder#build()} additionally checks combinations of options.
 *
 * @since 0.1.0
 * @see WheelTimer
 */
public final class WheelTimerOptions {

	/**
	 * Default duration of one tick: 10 ms. A timeout fires at most one tick after its
	 * deadline; 10 ms is precise enough for command timeouts of seconds while keeping the
	 * worker asleep 99% of the time.
	 */
	public static final Duration DEFAULT_TICK_DURATION = Duration.ofMillis(10);

	/**
	 * Default number of buckets: 8192, which at the default tick covers 81.92 s in one
	 * revolution, so any command timeout up to a minute lands in its bucket without extra
	 * rounds. The wheel costs 32 KB (one reference per bucket).
	 */
	public static final int DEFAULT_WHEEL_SIZE = 8192;

	/**
	 * Default limit of pending timeouts: 1,000,000. Lettuce holds one pending timeout per
	 * in-flight command, so a million pending timeouts means a million commands waiting
	 * for replies, which is far beyond any healthy application; the limit turns such a
	 * runaway into a clear {@link java.util.concurrent.RejectedExecutionException} long
	 * before the entries (about 48 bytes each, plus the commands they reference) exhaust
	 * the heap.
	 */
	public static final long DEFAULT_MAX_PENDING_TIMEOUTS = 1_000_000L;

	/**
	 * Default name of the timer thread.
	 */
	public static final String DEFAULT_THREAD_NAME = "lettuce-tuning-timer";

	/**
	 * Smallest accepted tick duration: 1 ms. Shorter ticks would wake the worker more
	 * often than operating systems reliably schedule sleeping threads.
	 */
	public static final Duration MIN_TICK_DURATION = Duration.ofMillis(1);

	/**
	 * Largest accepted wheel size: 2^20 buckets (4 MB of references with compressed oops,
	 * 8 MB without).
	 */
	public static final int MAX_WHEEL_SIZE = 1 << 20;

	private static final WheelTimerOptions DEFAULTS = builder().build();

	private final Duration tickDuration;

	private final int wheelSize;

	private final long maxPendingTimeouts;

	private final String threadName;

	private final @Nullable ThreadFactory threadFactory;

	private final @Nullable Executor taskExecutor;

	private final Ticker ticker;

	private WheelTimerOptions(Builder builder) {
		this.tickDuration = builder.tickDuration;
		this.wheelSize = builder.wheelSize;
		this.maxPendingTimeouts = builder.maxPendingTimeouts;
		this.threadName = builder.threadName;
		this.threadFactory = builder.threadFactory;
		this.taskExecutor = builder.taskExecutor;
		this.ticker = builder.ticker;
	}

	/**
	 * Return options with every setting at its default.
	 * @return the default options
	 */
	public static WheelTimerOptions create() {
		return DEFAULTS;
	}

	/**
	 * Return a new builder initialized with the defaults.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Return a copy of the given options, for symmetry with Lettuce's
	 * {@code ClientOptions.copyOf}.
	 * @param options the options to copy
	 * @return options equal to {@code options}
	 */
	public static WheelTimerOptions copyOf(WheelTimerOptions options) {
		Objects.requireNonNull(options, "options must not be null");
		return options.mutate().build();
	}

	/**
	 * Return a builder initialized with the settings of these options.
	 * @return a new builder
	 */
	public Builder mutate() {
		Builder builder = new Builder();
		builder.tickDuration = this.tickDuration;
		builder.wheelSize = this.wheelSize;
		builder.maxPendingTimeouts = this.maxPendingTimeouts;
		builder.threadName = this.threadName;
		builder.threadFactory = this.threadFactory;
		builder.taskExecutor = this.taskExecutor;
		builder.ticker = this.ticker;
		return builder;
	}

	/**
	 * Return the duration of one tick.
	 * @return the tick duration
	 */
	public Duration tickDuration() {
		return this.tickDuration;
	}

	/**
	 * Return the number of buckets of the wheel (a power of two).
	 * @return the wheel size
	 */
	public int wheelSize() {
		return this.wheelSize;
	}

	/**
	 * Return the time covered by one revolution of the wheel
	 * ({@code tickDuration x wheelSize}). Longer delays still work; their entries are
	 * revisited once per revolution.
	 * @return the wheel span
	 */
	public Duration wheelSpan() {
		return this.tickDuration.multipliedBy(this.wheelSize);
	}

	/**
	 * Return the limit of pending timeouts.
	 * @return the maximum number of pending timeouts
	 */
	public long maxPendingTimeouts() {
		return this.maxPendingTimeouts;
	}

	/**
	 * Return the name given to the timer thread when no {@link #threadFactory()} is set.
	 * @return the thread name
	 */
	public String threadName() {
		return this.threadName;
	}

	/**
	 * Return the factory of the timer thread, or {@code null} to create a daemon thread
	 * named {@link #threadName()}.
	 * @return the thread factory or {@code null}
	 */
	public @Nullable ThreadFactory threadFactory() {
		return this.threadFactory;
	}

	/**
	 * Return the executor that runs expired tasks, or {@code null} to run them on the
	 * timer thread.
	 * @return the task executor or {@code null}
	 */
	public @Nullable Executor taskExecutor() {
		return this.taskExecutor;
	}

	/**
	 * Return the time source.
	 * @return the ticker
	 */
	public Ticker ticker() {
		return this.ticker;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		if (!(other instanceof WheelTimerOptions that)) {
			return false;
		}
		return this.wheelSize == that.wheelSize && this.maxPendingTimeouts == that.maxPendingTimeouts
				&& this.tickDuration.equals(that.tickDuration) && this.threadName.equals(that.threadName)
				&& Objects.equals(this.threadFactory, that.threadFactory)
				&& Objects.equals(this.taskExecutor, that.taskExecutor) && this.ticker.equals(that.ticker);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.tickDuration, this.wheelSize, this.maxPendingTimeouts, this.threadName,
				this.threadFactory, this.taskExecutor, this.ticker);
	}

	@Override
	public String toString() {
		return "WheelTimerOptions[tickDuration=" + this.tickDuration + ", wheelSize=" + this.wheelSize
				+ ", maxPendingTimeouts=" + this.maxPendingTimeouts + ", threadName=" + this.threadName
				+ ", threadFactory=" + this.threadFactory + ", taskExecutor=" + this.taskExecutor + ", ticker="
				+ this.ticker + "]";
	}

	/**
	 * Builder of {@link WheelTimerOptions}. Not thread-safe.
	 *
	 * @since 0.1.0
	 */
	public static final class Builder {

		private Duration tickDuration = DEFAULT_TICK_DURATION;

		private int wheelSize = DEFAULT_WHEEL_SIZE;

		private long maxPendingTimeouts = DEFAULT_MAX_PENDING_TIMEOUTS;

		private String threadName = DEFAULT_THREAD_NAME;

		private @Nullable ThreadFactory threadFactory;

		private @Nullable Executor taskExecutor;

		private Ticker ticker = Ticker.system();

		private Builder() {
		}

		/**
		 * Set the duration of one tick: the worker wakes up once per tick and a timeout
		 * fires at most one tick after its deadline. Defaults to
		 * {@link WheelTimerOptions#DEFAULT_TICK_DURATION} (10 ms).
		 * @param tickDuration the tick duration, at least
		 * {@link WheelTimerOptions#MIN_TICK_DURATION} (1 ms)
		 * @return this builder
		 * @throws IllegalArgumentException if the duration is {@code null} or shorter
		 * than 1 ms
		 */
		public Builder tickDuration(Duration tickDuration) {
			if (tickDuration == null || tickDuration.compareTo(MIN_TICK_DURATION) < 0) {
				throw new IllegalArgumentException("tickDuration must be at least " + MIN_TICK_DURATION.toMillis()
						+ " ms but was " + tickDuration);
			}
			this.tickDuration = tickDuration;
			return this;
		}

		/**
		 * Set the number of buckets of the wheel. Together with the tick it sets the span
		 * of one revolution; pick it so that the span covers the longest common timeout.
		 * Defaults to {@link WheelTimerOptions#DEFAULT_WHEEL_SIZE} (8192, 81.92 s at the
		 * default tick).
		 * @param wheelSize the number of buckets, a power of two between 1 and
		 * {@link WheelTimerOptions#MAX_WHEEL_SIZE}
		 * @return this builder
		 * @throws IllegalArgumentException if the size is not a power of two or out of
		 * range
		 */
		public Builder wheelSize(int wheelSize) {
			if (wheelSize < 1 || wheelSize > MAX_WHEEL_SIZE || Integer.bitCount(wheelSize) != 1) {
				throw new IllegalArgumentException("wheelSize must be a power of two between 1 and " + MAX_WHEEL_SIZE
						+ " but was " + wheelSize + suggestPowerOfTwo(wheelSize));
			}
			this.wheelSize = wheelSize;
			return this;
		}

		/**
		 * Set the limit of pending timeouts (scheduled, neither expired nor cancelled);
		 * beyond it {@link WheelTimer#newTimeout} throws
		 * {@link java.util.concurrent.RejectedExecutionException}. The limit is enforced
		 * with striped counters and may be exceeded by at most the number of threads
		 * scheduling at that very moment. Use {@link Long#MAX_VALUE} for no practical
		 * limit. Defaults to {@link WheelTimerOptions#DEFAULT_MAX_PENDING_TIMEOUTS}
		 * (1,000,000).
		 * @param maxPendingTimeouts the limit, greater than zero
		 * @return this builder
		 * @throws IllegalArgumentException if the limit is not positive
		 */
		public Builder maxPendingTimeouts(long maxPendingTimeouts) {
			if (maxPendingTimeouts <= 0) {
				throw new IllegalArgumentException(
						"maxPendingTimeouts must be greater than 0 but was " + maxPendingTimeouts);
			}
			this.maxPendingTimeouts = maxPendingTimeouts;
			return this;
		}

		/**
		 * Set the name of the timer thread, used when no
		 * {@link #threadFactory(ThreadFactory) thread factory} is set. Defaults to
		 * {@link WheelTimerOptions#DEFAULT_THREAD_NAME} ({@code lettuce-tuning-timer}).
		 * @param threadName the thread name, not blank
		 * @return this builder
		 * @throws IllegalArgumentException if the name is {@code null} or blank
		 */
		public Builder threadName(String threadName) {
			if (threadName == null || threadName.isBlank()) {
				throw new IllegalArgumentException("threadName must not be blank but was '" + threadName + "'");
			}
			this.threadName = threadName;
			return this;
		}

		/**
		 * Set the factory of the timer thread; when set, {@link #threadName(String)} is
		 * ignored. Defaults to {@code null}: a daemon thread named after
		 * {@link WheelTimerOptions#DEFAULT_THREAD_NAME}.
		 * @param threadFactory the thread factory or {@code null} for the default
		 * @return this builder
		 */
		public Builder threadFactory(@Nullable ThreadFactory threadFactory) {
			this.threadFactory = threadFactory;
			return this;
		}

		/**
		 * Set an executor that runs expired tasks instead of the timer thread, for tasks
		 * that may block or take long. Lettuce's own tasks only hand over to another
		 * executor, so the default {@code null} (run on the timer thread, no hand-over
		 * cost) suits them.
		 * @param taskExecutor the task executor or {@code null} to run tasks on the timer
		 * thread
		 * @return this builder
		 */
		public Builder taskExecutor(@Nullable Executor taskExecutor) {
			this.taskExecutor = taskExecutor;
			return this;
		}

		/**
		 * Set the time source. Defaults to {@link Ticker#system()}; tests inject a manual
		 * ticker.
		 * @param ticker the time source
		 * @return this builder
		 * @throws IllegalArgumentException if the ticker is {@code null}
		 */
		public Builder ticker(Ticker ticker) {
			if (ticker == null) {
				throw new IllegalArgumentException("ticker must not be null");
			}
			this.ticker = ticker;
			return this;
		}

		/**
		 * Build immutable options from the settings of this builder.
		 * @return the options
		 * @throws IllegalArgumentException if one revolution of the wheel
		 * ({@code tickDuration x wheelSize}) does not fit in a {@code long} of
		 * nanoseconds
		 */
		public WheelTimerOptions build() {
			long maxTickNanos = Long.MAX_VALUE / this.wheelSize;
			if (this.tickDuration.compareTo(Duration.ofNanos(maxTickNanos)) > 0) {
				throw new IllegalArgumentException("tickDuration x wheelSize must fit in " + Long.MAX_VALUE
						+ " ns but tickDuration was " + this.tickDuration + " and wheelSize " + this.wheelSize);
			}
			return new WheelTimerOptions(this);
		}

		private static String suggestPowerOfTwo(int wheelSize) {
			if (wheelSize < 1 || wheelSize > MAX_WHEEL_SIZE) {
				return "";
			}
			return " (try " + Integer.highestOneBit(wheelSize) + " or " + (Integer.highestOneBit(wheelSize) << 1) + ")";
		}

	}

}
