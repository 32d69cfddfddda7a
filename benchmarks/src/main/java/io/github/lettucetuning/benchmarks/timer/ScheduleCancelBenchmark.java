package io.github.lettucetuning.benchmarks.timer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Threads;

/**
 * Schedule-then-cancel on the same thread, at 1, 4 and 16 threads, for each timer
 * implementation. The thread count is part of each method (rather than a {@code -t}
 * option) so that one run of this class produces the whole table: 12 benchmarks, about
 * 5.5 minutes.
 *
 * @since 0.1.0
 */
public class ScheduleCancelBenchmark extends TimerBenchmarkBase {

	@Benchmark
	@Threads(1)
	public boolean wheelTimer_t01(WheelTimerState state) {
		return scheduleThenCancel(state.timer);
	}

	@Benchmark
	@Threads(4)
	public boolean wheelTimer_t04(WheelTimerState state) {
		return scheduleThenCancel(state.timer);
	}

	@Benchmark
	@Threads(16)
	public boolean wheelTimer_t16(WheelTimerState state) {
		return scheduleThenCancel(state.timer);
	}

	@Benchmark
	@Threads(1)
	public boolean hashedWheelLettuceDefault_t01(LettuceDefaultHashedWheelTimerState state) {
		return scheduleThenCancel(state.timer);
	}

	@Benchmark
	@Threads(4)
	public boolean hashedWheelLettuceDefault_t04(LettuceDefaultHashedWheelTimerState state) {
		return scheduleThenCancel(state.timer);
	}

	@Benchmark
	@Threads(16)
	public boolean hashedWheelLettuceDefault_t16(LettuceDefaultHashedWheelTimerState state) {
		return scheduleThenCancel(state.timer);
	}

	@Benchmark
	@Threads(1)
	public boolean hashedWheel10ms_t01(FineHashedWheelTimerState state) {
		return scheduleThenCancel(state.timer);
	}

	@Benchmark
	@Threads(4)
	public boolean hashedWheel10ms_t04(FineHashedWheelTimerState state) {
		return scheduleThenCancel(state.timer);
	}

	@Benchmark
	@Threads(16)
	public boolean hashedWheel10ms_t16(FineHashedWheelTimerState state) {
		return scheduleThenCancel(state.timer);
	}

	@Benchmark
	@Threads(1)
	public boolean scheduledExecutor_t01(ScheduledExecutorState state) {
		return scheduleThenCancel(state.executor);
	}

	@Benchmark
	@Threads(4)
	public boolean scheduledExecutor_t04(ScheduledExecutorState state) {
		return scheduleThenCancel(state.executor);
	}

	@Benchmark
	@Threads(16)
	public boolean scheduledExecutor_t16(ScheduledExecutorState state) {
		return scheduleThenCancel(state.executor);
	}

}
