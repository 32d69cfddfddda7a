package io.github.lettucetuning.benchmarks.timer;

import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.netty.util.Timeout;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Control;

/**
 * Schedule on one thread, cancel on another, as Lettuce does (caller thread schedules,
 * event loop cancels): each group has one scheduling thread that hands its timeouts over
 * a bounded single-producer single-consumer ring to one cancelling thread. Read the
 * {@code :*_schedule} rows: they count completed schedule-and-hand-over operations; the
 * {@code :*_cancel} rows also count polls of an empty ring. About 2 minutes for the 4
 * groups.
 *
 * @since 0.1.0
 */
public class CrossThreadCancelBenchmark extends TimerBenchmarkBase {

	@Benchmark
	@Group("wheelTimer")
	@GroupThreads(1)
	public boolean wheelTimer_schedule(WheelTimerState state, Handoff handoff, Control control) {
		return handoff.offer(state.timer.newTimeout(NO_OP_TASK, COMMAND_TIMEOUT_NANOS, TimeUnit.NANOSECONDS), control);
	}

	@Benchmark
	@Group("wheelTimer")
	@GroupThreads(1)
	public boolean wheelTimer_cancel(Handoff handoff) {
		return handoff.cancelNext();
	}

	@Benchmark
	@Group("hashedWheelLettuceDefault")
	@GroupThreads(1)
	public boolean hashedWheelLettuceDefault_schedule(LettuceDefaultHashedWheelTimerState state, Handoff handoff,
			Control control) {
		return handoff.offer(state.timer.newTimeout(NO_OP_TASK, COMMAND_TIMEOUT_NANOS, TimeUnit.NANOSECONDS), control);
	}

	@Benchmark
	@Group("hashedWheelLettuceDefault")
	@GroupThreads(1)
	public boolean hashedWheelLettuceDefault_cancel(Handoff handoff) {
		return handoff.cancelNext();
	}

	@Benchmark
	@Group("hashedWheel10ms")
	@GroupThreads(1)
	public boolean hashedWheel10ms_schedule(FineHashedWheelTimerState state, Handoff handoff, Control control) {
		return handoff.offer(state.timer.newTimeout(NO_OP_TASK, COMMAND_TIMEOUT_NANOS, TimeUnit.NANOSECONDS), control);
	}

	@Benchmark
	@Group("hashedWheel10ms")
	@GroupThreads(1)
	public boolean hashedWheel10ms_cancel(Handoff handoff) {
		return handoff.cancelNext();
	}

	@Benchmark
	@Group("scheduledExecutor")
	@GroupThreads(1)
	public boolean scheduledExecutor_schedule(ScheduledExecutorState state, Handoff handoff, Control control) {
		return handoff.offer(state.executor.schedule(NO_OP_RUNNABLE, COMMAND_TIMEOUT_NANOS, TimeUnit.NANOSECONDS),
				control);
	}

	@Benchmark
	@Group("scheduledExecutor")
	@GroupThreads(1)
	public boolean scheduledExecutor_cancel(Handoff handoff) {
		return handoff.cancelNext();
	}

	/**
	 * Bounded single-producer single-consumer ring between the scheduling and the
	 * cancelling thread of a group. An empty slot is {@code null}; each side keeps its
	 * own index, on its own padded holder.
	 */
	@State(Scope.Group)
	public static class Handoff {

		private static final int CAPACITY = 1024;

		private final AtomicReferenceArray<Object> ring = new AtomicReferenceArray<>(CAPACITY);

		private final PaddedIndex producerIndex = new PaddedIndex();

		private final PaddedIndex consumerIndex = new PaddedIndex();

		/**
		 * Hand a timeout ({@link Timeout} or {@link Future}) to the cancelling thread,
		 * spinning while the ring is full; cancels it here if the iteration ends
		 * meanwhile.
		 * @param timeout the timeout
		 * @param control JMH's iteration control
		 * @return whether the timeout was handed over
		 */
		boolean offer(Object timeout, Control control) {
			int slot = (int) (this.producerIndex.value & (CAPACITY - 1));
			while (this.ring.get(slot) != null) {
				if (control.stopMeasurement) {
					cancel(timeout);
					return false;
				}
				Thread.onSpinWait();
			}
			this.ring.lazySet(slot, timeout);
			this.producerIndex.value++;
			return true;
		}

		/**
		 * Cancel the next handed-over timeout, if any.
		 * @return whether a timeout was cancelled
		 */
		boolean cancelNext() {
			int slot = (int) (this.consumerIndex.value & (CAPACITY - 1));
			Object timeout = this.ring.get(slot);
			if (timeout == null) {
				return false;
			}
			this.ring.lazySet(slot, null);
			this.consumerIndex.value++;
			return cancel(timeout);
		}

		private static boolean cancel(Object timeout) {
			if (timeout instanceof Timeout nettyTimeout) {
				return nettyTimeout.cancel();
			}
			return ((Future<?>) timeout).cancel(false);
		}

	}

	/**
	 * An index written by one thread only, padded so the two sides do not share a cache
	 * line.
	 */
	@SuppressWarnings("unused")
	static final class PaddedIndex {

		long p01, p02, p03, p04, p05, p06, p07;

		long value;

		long p11, p12, p13, p14, p15, p16, p17;

	}

}
