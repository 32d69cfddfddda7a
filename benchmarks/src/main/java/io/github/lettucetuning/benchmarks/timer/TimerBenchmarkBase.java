package io.github.lettucetuning.benchmarks.timer;

import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.timeout.WheelTimer;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Settings shared by the timer benchmarks, and one state per timer implementation so that
 * a benchmark method only starts the timer it measures. Each benchmark runs 2 forks x (3
 * warmup + 3 measurement) iterations of 2 s, about 26 s with JVM start-up.
 * <p>
 * Every operation models a Redis command under Lettuce: schedule a timeout of
 * {@link #COMMAND_TIMEOUT} (a typical command timeout), then cancel it, as the event loop
 * does when the reply arrives long before the deadline.
 *
 * @since 0.1.0
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 2, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 2)
public abstract class TimerBenchmarkBase {

	/**
	 * Delay of every scheduled timeout.
	 */
	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

	static final long COMMAND_TIMEOUT_NANOS = COMMAND_TIMEOUT.toNanos();

	/**
	 * Task of every timeout; never runs since every timeout is cancelled first.
	 */
	static final TimerTask NO_OP_TASK = (timeout) -> {
	};

	static final Runnable NO_OP_RUNNABLE = () -> {
	};

	/**
	 * Schedule a command timeout and cancel it.
	 * @param timer the timer under test
	 * @return whether the cancel succeeded, for JMH to consume
	 */
	static boolean scheduleThenCancel(Timer timer) {
		return timer.newTimeout(NO_OP_TASK, COMMAND_TIMEOUT_NANOS, TimeUnit.NANOSECONDS).cancel();
	}

	/**
	 * Schedule a command timeout on a JDK scheduler and cancel it.
	 * @param executor the scheduler under test
	 * @return whether the cancel succeeded, for JMH to consume
	 */
	static boolean scheduleThenCancel(ScheduledThreadPoolExecutor executor) {
		return executor.schedule(NO_OP_RUNNABLE, COMMAND_TIMEOUT_NANOS, TimeUnit.NANOSECONDS).cancel(false);
	}

	/**
	 * Our {@link WheelTimer} with default options (10 ms tick, 8192 buckets).
	 */
	@State(Scope.Benchmark)
	public static class WheelTimerState {

		Timer timer;

		@Setup(Level.Trial)
		public void start() {
			this.timer = new WheelTimer();
		}

		@TearDown(Level.Trial)
		public void stop() {
			this.timer.stop();
		}

	}

	/**
	 * Netty's {@link HashedWheelTimer} exactly as Lettuce creates it by default (100 ms
	 * tick, 512 buckets).
	 */
	@State(Scope.Benchmark)
	public static class LettuceDefaultHashedWheelTimerState {

		Timer timer;

		@Setup(Level.Trial)
		public void start() {
			this.timer = new HashedWheelTimer(new DefaultThreadFactory("lettuce-timer", true));
		}

		@TearDown(Level.Trial)
		public void stop() {
			this.timer.stop();
		}

	}

	/**
	 * Netty's {@link HashedWheelTimer} at our tick (10 ms) with 2048 buckets (a 20 s
	 * span).
	 */
	@State(Scope.Benchmark)
	public static class FineHashedWheelTimerState {

		Timer timer;

		@Setup(Level.Trial)
		public void start() {
			this.timer = new HashedWheelTimer(new DefaultThreadFactory("fine-timer", true), 10, TimeUnit.MILLISECONDS,
					2048);
		}

		@TearDown(Level.Trial)
		public void stop() {
			this.timer.stop();
		}

	}

	/**
	 * A JDK {@link ScheduledThreadPoolExecutor} with one thread that removes cancelled
	 * tasks from its queue.
	 */
	@State(Scope.Benchmark)
	public static class ScheduledExecutorState {

		ScheduledThreadPoolExecutor executor;

		@Setup(Level.Trial)
		public void start() {
			this.executor = new ScheduledThreadPoolExecutor(1, new DefaultThreadFactory("scheduled-executor", true));
			this.executor.setRemoveOnCancelPolicy(true);
		}

		@TearDown(Level.Trial)
		public void stop() {
			this.executor.shutdownNow();
		}

	}

}
