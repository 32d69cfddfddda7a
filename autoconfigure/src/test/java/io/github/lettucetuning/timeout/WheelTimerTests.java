package io.github.lettucetuning.timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link WheelTimer}. Nearly all run the wheel without a worker thread and
 * drive it with a {@link ManualTicker}, so nothing sleeps and every bound is exact.
 */
class WheelTimerTests {

	private static final Duration TICK = Duration.ofMillis(10);

	private static final long TICK_NANOS = TICK.toNanos();

	private final ManualTicker ticker = new ManualTicker();

	private final List<WheelTimer> timers = new ArrayList<>();

	@AfterEach
	void stopTimers() {
		this.timers.forEach(WheelTimer::stop);
	}

	@Test
	void firesNoEarlierThanDeadlineAndAtMostOneTickAfter() {
		WheelTimer timer = manualTimer();
		List<Long> delaysMillis = List.of(1L, 9L, 10L, 11L, 25L, 30L, 999L, 2000L);
		List<FiredAt> fired = new ArrayList<>();
		long start = this.ticker.nanoTime();
		for (long delay : delaysMillis) {
			timer.newTimeout((timeout) -> fired.add(new FiredAt(delay, this.ticker.nanoTime() - start)), delay,
					TimeUnit.MILLISECONDS);
		}
		advanceInSteps(timer, Duration.ofMillis(2100), Duration.ofMillis(1));
		assertThat(fired).hasSize(delaysMillis.size());
		for (FiredAt firedAt : fired) {
			long deadline = TimeUnit.MILLISECONDS.toNanos(firedAt.delayMillis());
			assertThat(firedAt.elapsedNanos()).as("delay %d ms", firedAt.delayMillis())
				.isGreaterThanOrEqualTo(deadline)
				.isLessThanOrEqualTo(deadline + TICK_NANOS);
		}
	}

	@Test
	void firesExactlyAtTheTickBoundaryThatEqualsTheDeadline() {
		WheelTimer timer = manualTimer();
		RecordingTask task = new RecordingTask();
		timer.newTimeout(task, 20, TimeUnit.MILLISECONDS);
		advance(timer, Duration.ofNanos(20 * 1_000_000 - 1));
		assertThat(task.runs()).isZero();
		advance(timer, Duration.ofNanos(1));
		assertThat(task.runs()).isOne();
	}

	@Test
	void runsTasksDueInTheSameTickInDeadlineOrder() {
		WheelTimer timer = manualTimer();
		List<Integer> order = new ArrayList<>();
		for (int delay : new int[] { 9, 3, 7, 1, 5 }) {
			timer.newTimeout((timeout) -> order.add(delay), delay, TimeUnit.MILLISECONDS);
		}
		advance(timer, TICK);
		assertThat(order).containsExactly(1, 3, 5, 7, 9);
	}

	@Test
	void runsTasksOfSeveralOverdueTicksInDeadlineOrder() {
		WheelTimer timer = manualTimer();
		List<Integer> order = new ArrayList<>();
		for (int delay : new int[] { 45, 3, 27, 11, 30, 1 }) {
			timer.newTimeout((timeout) -> order.add(delay), delay, TimeUnit.MILLISECONDS);
		}
		advance(timer, Duration.ofMillis(50));
		assertThat(order).containsExactly(1, 3, 11, 27, 30, 45);
	}

	@Test
	void cancelBeforeTheWorkerSawTheTimeoutDropsIt() {
		WheelTimer timer = manualTimer();
		RecordingTask task = new RecordingTask();
		Timeout timeout = timer.newTimeout(task, 1, TimeUnit.SECONDS);
		assertThat(timer.pendingTimeouts()).isOne();
		assertThat(timeout.cancel()).isTrue();
		assertThat(timeout.isCancelled()).isTrue();
		assertThat(timeout.isExpired()).isFalse();
		assertThat(timer.pendingTimeouts()).isZero();
		assertThat(task.cancellations()).isOne();
		advance(timer, TICK);
		assertThat(timer.retainedTimeouts()).isZero();
		advanceInSteps(timer, Duration.ofSeconds(2), TICK);
		assertThat(task.runs()).isZero();
		assertThat(timer.expiredTimeouts()).isZero();
	}

	@Test
	void cancelAfterTheTimeoutEnteredItsBucketReleasesItAtTheNextTick() {
		WheelTimer timer = manualTimer();
		RecordingTask task = new RecordingTask();
		Timeout timeout = timer.newTimeout(task, 30, TimeUnit.SECONDS);
		Timeout other = timer.newTimeout(task, 30, TimeUnit.SECONDS);
		advance(timer, TICK);
		assertThat(timer.retainedTimeouts()).isEqualTo(2);
		assertThat(timeout.cancel()).isTrue();
		assertThat(timer.pendingTimeouts()).isOne();
		advance(timer, TICK);
		assertThat(timer.retainedTimeouts()).isOne();
		assertThat(other.cancel()).isTrue();
		advance(timer, TICK);
		assertThat(timer.retainedTimeouts()).isZero();
		assertThat(timer.pendingTimeouts()).isZero();
		advance(timer, Duration.ofSeconds(31));
		assertThat(task.runs()).isZero();
		assertThat(task.cancellations()).isEqualTo(2);
	}

	@Test
	void cancelledEntryIsReleasedWhenItsBucketComesUpBeforeTheCancellationIsProcessed() {
		WheelTimer timer = manualTimer();
		RecordingTask task = new RecordingTask();
		Timeout timeout = timer.newTimeout(task, 15, TimeUnit.MILLISECONDS);
		advance(timer, TICK);
		assertThat(timeout.cancel()).isTrue();
		advance(timer, TICK);
		assertThat(timer.retainedTimeouts()).isZero();
		advance(timer, TICK);
		assertThat(task.runs()).isZero();
	}

	@Test
	void cancelAfterExpiryReturnsFalse() {
		WheelTimer timer = manualTimer();
		RecordingTask task = new RecordingTask();
		Timeout timeout = timer.newTimeout(task, 5, TimeUnit.MILLISECONDS);
		advance(timer, TICK);
		assertThat(task.runs()).isOne();
		assertThat(timeout.isExpired()).isTrue();
		assertThat(timeout.cancel()).isFalse();
		assertThat(timeout.isCancelled()).isFalse();
		assertThat(task.cancellations()).isZero();
		assertThat(timer.expiredTimeouts()).isOne();
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	void secondCancelReturnsFalse() {
		WheelTimer timer = manualTimer();
		Timeout timeout = timer.newTimeout(new RecordingTask(), 1, TimeUnit.SECONDS);
		assertThat(timeout.cancel()).isTrue();
		assertThat(timeout.cancel()).isFalse();
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	void zeroAndNegativeDelaysFireInTheNextPassWithoutWaitingForATick() {
		WheelTimer timer = manualTimer();
		RecordingTask task = new RecordingTask();
		advance(timer, Duration.ofMillis(3));
		timer.newTimeout(task, 0, TimeUnit.MILLISECONDS);
		timer.newTimeout(task, -5, TimeUnit.SECONDS);
		timer.newTimeout(task, Long.MIN_VALUE, TimeUnit.NANOSECONDS);
		RecordingTask later = new RecordingTask();
		timer.newTimeout(later, 1, TimeUnit.MILLISECONDS);
		timer.advance();
		assertThat(task.runs()).isEqualTo(3);
		assertThat(later.runs()).isZero();
		assertThat(timer.expiredTimeouts()).isEqualTo(3);
		assertThat(timer.pendingTimeouts()).isOne();
		advance(timer, Duration.ofMillis(7));
		assertThat(later.runs()).isOne();
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	void timeoutCancelledBeforeThePassThatFindsItDueNeverRuns() {
		WheelTimer timer = manualTimer();
		RecordingTask task = new RecordingTask();
		Timeout timeout = timer.newTimeout(task, 0, TimeUnit.MILLISECONDS);
		assertThat(timeout.cancel()).isTrue();
		timer.advance();
		assertThat(task.runs()).isZero();
		assertThat(timer.expiredTimeouts()).isZero();
		assertThat(timer.pendingTimeouts()).isZero();
		assertThat(timer.retainedTimeouts()).isZero();
	}

	@Test
	void hugeDelaysDoNotOverflow() {
		WheelTimer timer = manualTimer(WheelTimerOptions.builder().wheelSize(16));
		RecordingTask task = new RecordingTask();
		this.ticker.advance(Duration.ofDays(365));
		Timeout maxNanos = timer.newTimeout(task, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
		Timeout maxDays = timer.newTimeout(task, Long.MAX_VALUE, TimeUnit.DAYS);
		advanceInSteps(timer, Duration.ofMillis(500), TICK);
		advance(timer, Duration.ofDays(3650));
		assertThat(task.runs()).isZero();
		assertThat(timer.pendingTimeouts()).isEqualTo(2);
		assertThat(maxNanos.cancel()).isTrue();
		assertThat(maxDays.cancel()).isTrue();
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	void delaysBeyondOneRevolutionFireInTheirOwnRound() {
		WheelTimer timer = manualTimer(WheelTimerOptions.builder().wheelSize(8));
		List<FiredAt> fired = new ArrayList<>();
		long start = this.ticker.nanoTime();
		for (long delay : new long[] { 80, 85, 250, 1000 }) {
			timer.newTimeout((timeout) -> fired.add(new FiredAt(delay, this.ticker.nanoTime() - start)), delay,
					TimeUnit.MILLISECONDS);
		}
		advanceInSteps(timer, Duration.ofMillis(1200), Duration.ofMillis(1));
		assertThat(fired).extracting(FiredAt::delayMillis).containsExactly(80L, 85L, 250L, 1000L);
		for (FiredAt firedAt : fired) {
			long deadline = TimeUnit.MILLISECONDS.toNanos(firedAt.delayMillis());
			assertThat(firedAt.elapsedNanos()).isBetween(deadline, deadline + TICK_NANOS);
		}
	}

	@Test
	void catchingUpMoreThanOneRevolutionExpiresEverythingDue() {
		WheelTimer timer = manualTimer(WheelTimerOptions.builder().wheelSize(4));
		RecordingTask task = new RecordingTask();
		for (int delay = 0; delay < 200; delay += 7) {
			timer.newTimeout(task, delay, TimeUnit.MILLISECONDS);
		}
		Timeout later = timer.newTimeout(task, 500, TimeUnit.MILLISECONDS);
		advance(timer, Duration.ofMillis(205));
		assertThat(task.runs()).isEqualTo(29);
		assertThat(later.isExpired()).isFalse();
		advance(timer, Duration.ofMillis(295));
		assertThat(later.isExpired()).isTrue();
	}

	@Test
	void throwingTaskDoesNotStopLaterTasks() {
		WheelTimer timer = manualTimer();
		RecordingTask task = new RecordingTask();
		timer.newTimeout((timeout) -> {
			throw new IllegalStateException("boom");
		}, 1, TimeUnit.MILLISECONDS);
		timer.newTimeout((timeout) -> {
			throw new AssertionError("bang");
		}, 2, TimeUnit.MILLISECONDS);
		timer.newTimeout(task, 3, TimeUnit.MILLISECONDS);
		advance(timer, TICK);
		timer.newTimeout(task, 3, TimeUnit.MILLISECONDS);
		advance(timer, TICK);
		assertThat(task.runs()).isEqualTo(2);
		assertThat(timer.expiredTimeouts()).isEqualTo(4);
	}

	@Test
	void throwingCancelledCallbackStillCancels() {
		WheelTimer timer = manualTimer();
		Timeout timeout = timer.newTimeout(new TimerTask() {

			@Override
			public void run(Timeout timeout) {
			}

			@Override
			public void cancelled(Timeout timeout) {
				throw new IllegalStateException("boom");
			}

		}, 1, TimeUnit.SECONDS);
		assertThat(timeout.cancel()).isTrue();
		assertThat(timeout.isCancelled()).isTrue();
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	void stopReturnsAndCancelsUnexpiredTimeouts() {
		WheelTimer timer = manualTimer();
		RecordingTask task = new RecordingTask();
		timer.newTimeout(task, 5, TimeUnit.MILLISECONDS);
		timer.newTimeout(task, 1, TimeUnit.SECONDS).cancel();
		Timeout inBucket = timer.newTimeout(task, 1, TimeUnit.SECONDS);
		advance(timer, TICK);
		Timeout queued = timer.newTimeout(task, 1, TimeUnit.SECONDS);
		Set<Timeout> unprocessed = timer.stop();
		assertThat(unprocessed).containsExactlyInAnyOrder(inBucket, queued);
		assertThat(unprocessed).allMatch(Timeout::isCancelled);
		assertThat(timer.pendingTimeouts()).isZero();
		assertThat(task.runs()).isOne();
		assertThat(timer.stop()).isEmpty();
	}

	@Test
	void newTimeoutAfterStopThrows() {
		WheelTimer timer = manualTimer();
		timer.stop();
		assertThatIllegalStateException().isThrownBy(() -> timer.newTimeout(new RecordingTask(), 1, TimeUnit.SECONDS))
			.withMessageContaining("stopped");
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	void stopFromATaskOnTheTickingThreadThrows() {
		WheelTimer timer = manualTimer();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		timer.newTimeout((timeout) -> {
			try {
				timer.stop();
			}
			catch (Throwable ex) {
				failure.set(ex);
			}
		}, 1, TimeUnit.MILLISECONDS);
		advance(timer, TICK);
		assertThat(failure.get()).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("cannot be called from a TimerTask");
		Timeout stillWorking = timer.newTimeout(new RecordingTask(), 1, TimeUnit.MILLISECONDS);
		advance(timer, TICK);
		assertThat(stillWorking.isExpired()).isTrue();
	}

	@Test
	void rejectsBeyondMaxPendingTimeoutsAndRecoversAfterCancels() {
		WheelTimer timer = manualTimer(WheelTimerOptions.builder().maxPendingTimeouts(10));
		RecordingTask task = new RecordingTask();
		List<Timeout> timeouts = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			timeouts.add(timer.newTimeout(task, 1, TimeUnit.SECONDS));
		}
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> timer.newTimeout(task, 1, TimeUnit.SECONDS))
			.withMessageContaining("10 timeouts are pending")
			.withMessageContaining("WheelTimerOptions.maxPendingTimeouts");
		assertThat(timer.pendingTimeouts()).isEqualTo(10);
		timeouts.subList(0, 3).forEach(Timeout::cancel);
		for (int i = 0; i < 3; i++) {
			timer.newTimeout(task, 1, TimeUnit.SECONDS);
		}
		assertThatExceptionOfType(RejectedExecutionException.class)
			.isThrownBy(() -> timer.newTimeout(task, 1, TimeUnit.SECONDS));
		advance(timer, Duration.ofSeconds(1));
		assertThat(timer.pendingTimeouts()).isZero();
		for (int i = 0; i < 10; i++) {
			timer.newTimeout(task, 1, TimeUnit.SECONDS);
		}
		assertThat(timer.pendingTimeouts()).isEqualTo(10);
	}

	@Test
	void runsExpiredTasksOnTheTaskExecutor() {
		ConcurrentLinkedQueue<Runnable> submitted = new ConcurrentLinkedQueue<>();
		WheelTimer timer = manualTimer(WheelTimerOptions.builder().taskExecutor(submitted::add));
		RecordingTask task = new RecordingTask();
		Timeout timeout = timer.newTimeout(task, 5, TimeUnit.MILLISECONDS);
		advance(timer, TICK);
		assertThat(timeout.isExpired()).isTrue();
		assertThat(timer.expiredTimeouts()).isOne();
		assertThat(task.runs()).isZero();
		assertThat(submitted).hasSize(1);
		submitted.poll().run();
		assertThat(task.runs()).isOne();
	}

	@Test
	void rejectingTaskExecutorDoesNotStopTheTimer() {
		WheelTimer timer = manualTimer(WheelTimerOptions.builder().taskExecutor((command) -> {
			throw new RejectedExecutionException("full");
		}));
		timer.newTimeout(new RecordingTask(), 5, TimeUnit.MILLISECONDS);
		advance(timer, TICK);
		Timeout next = timer.newTimeout(new RecordingTask(), 5, TimeUnit.MILLISECONDS);
		advance(timer, TICK);
		assertThat(next.isExpired()).isTrue();
		assertThat(timer.expiredTimeouts()).isEqualTo(2);
	}

	@Test
	void exposesTimerAndTaskOfATimeout() {
		WheelTimer timer = manualTimer();
		RecordingTask task = new RecordingTask();
		Timeout timeout = timer.newTimeout(task, 1, TimeUnit.SECONDS);
		assertThat(timeout.timer()).isSameAs(timer);
		assertThat(timeout.task()).isSameAs(task);
		assertThat(timeout).hasToString("WheelTimeout[queued, deadline=1000000000ns, task=" + task + "]");
		assertThat(timer.tickDuration()).isEqualTo(TICK);
		assertThat(timer.options().ticker()).isSameAs(this.ticker);
	}

	@Test
	void rejectsNullArguments() {
		WheelTimer timer = manualTimer();
		assertThatNullPointerException().isThrownBy(() -> timer.newTimeout(null, 1, TimeUnit.SECONDS))
			.withMessageContaining("task");
		assertThatNullPointerException().isThrownBy(() -> timer.newTimeout(new RecordingTask(), 1, null))
			.withMessageContaining("unit");
	}

	@Test
	void countsLiveInstances() {
		int before = WheelTimer.liveInstances();
		WheelTimer timer = new WheelTimer();
		assertThat(WheelTimer.liveInstances()).isEqualTo(before + 1);
		timer.stop();
		timer.stop();
		assertThat(WheelTimer.liveInstances()).isEqualTo(before);
	}

	@Test
	@org.junit.jupiter.api.Timeout(60)
	void concurrentScheduleAndCancelLosesAndDuplicatesNothing() throws Exception {
		WheelTimer timer = manualTimer(WheelTimerOptions.builder().tickDuration(Duration.ofMillis(1)));
		int threads = 8;
		int perThread = 100_000;
		AtomicIntegerArray runs = new AtomicIntegerArray(threads * perThread);
		boolean[] cancelled = new boolean[threads * perThread];
		AtomicBoolean producersDone = new AtomicBoolean();
		Thread driver = new Thread(() -> {
			while (!producersDone.get() || timer.pendingTimeouts() > 0) {
				this.ticker.advance(Duration.ofMillis(1));
				timer.advance();
			}
		}, "driver");
		driver.start();
		List<Thread> producers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int first = t * perThread;
			producers.add(new Thread(() -> {
				ThreadLocalRandom random = ThreadLocalRandom.current();
				for (int index = first; index < first + perThread; index++) {
					int slot = index;
					TimerTask task = (timeout) -> runs.incrementAndGet(slot);
					int kind = index % 100;
					if (kind == 0) {
						timer.newTimeout(task, random.nextInt(50), TimeUnit.MILLISECONDS);
					}
					else if (kind < 5) {
						// Races the cancel against expiry: either may win, never both.
						Timeout timeout = timer.newTimeout(task, random.nextInt(3), TimeUnit.MILLISECONDS);
						Thread.onSpinWait();
						cancelled[slot] = timeout.cancel();
					}
					else {
						cancelled[slot] = timer.newTimeout(task, 2, TimeUnit.SECONDS).cancel();
					}
				}
			}, "producer-" + t));
		}
		producers.forEach(Thread::start);
		for (Thread producer : producers) {
			producer.join();
		}
		producersDone.set(true);
		driver.join();
		long ran = 0;
		for (int index = 0; index < runs.length(); index++) {
			int outcomes = runs.get(index) + (cancelled[index] ? 1 : 0);
			assertThat(outcomes).as("outcomes of timeout %d", index).isOne();
			if (index % 100 == 0) {
				assertThat(runs.get(index)).as("runs of uncancelled timeout %d", index).isOne();
			}
			ran += runs.get(index);
		}
		assertThat(timer.expiredTimeouts()).isEqualTo(ran);
		assertThat(timer.pendingTimeouts()).isZero();
		timer.advance();
		assertThat(timer.retainedTimeouts()).isZero();
	}

	@Test
	@org.junit.jupiter.api.Timeout(60)
	void concurrentScheduleAndCancelNearTheLimitIsNeverRejected() throws Exception {
		// No tick ever refreshes the stripes' shares, so after the first few hundred
		// operations every call sums all
		// stripes while the other threads keep counting; at most 8 timeouts are ever
		// pending.
		WheelTimer timer = manualTimer(WheelTimerOptions.builder().maxPendingTimeouts(64));
		int threads = 8;
		AtomicInteger rejected = new AtomicInteger();
		List<Thread> producers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			producers.add(new Thread(() -> {
				for (int i = 0; i < 100_000; i++) {
					try {
						timer.newTimeout(new RecordingTask(), 2, TimeUnit.SECONDS).cancel();
					}
					catch (RejectedExecutionException ex) {
						rejected.incrementAndGet();
					}
				}
			}));
		}
		producers.forEach(Thread::start);
		for (Thread producer : producers) {
			producer.join();
		}
		assertThat(rejected).hasValue(0);
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	@org.junit.jupiter.api.Timeout(30)
	void workerThreadFiresTimeoutsNotBeforeTheirDeadline() throws Exception {
		WheelTimer timer = new WheelTimer(
				WheelTimerOptions.builder().tickDuration(Duration.ofMillis(1)).threadName("wheel-timer-smoke").build());
		this.timers.add(timer);
		int count = 50;
		CountDownLatch fired = new CountDownLatch(count);
		AtomicInteger early = new AtomicInteger();
		AtomicReference<String> threadName = new AtomicReference<>();
		AtomicBoolean daemon = new AtomicBoolean();
		for (int i = 0; i < count; i++) {
			long delayNanos = TimeUnit.MILLISECONDS.toNanos(i % 20);
			long scheduledAt = System.nanoTime();
			timer.newTimeout((timeout) -> {
				if (System.nanoTime() - scheduledAt < delayNanos) {
					early.incrementAndGet();
				}
				threadName.set(Thread.currentThread().getName());
				daemon.set(Thread.currentThread().isDaemon());
				fired.countDown();
			}, delayNanos, TimeUnit.NANOSECONDS);
		}
		Timeout throwing = timer.newTimeout((timeout) -> {
			throw new IllegalStateException("boom");
		}, 0, TimeUnit.MILLISECONDS);
		assertThat(fired.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(early).hasValue(0);
		assertThat(threadName).hasValue("wheel-timer-smoke");
		assertThat(daemon).isTrue();
		assertThat(throwing.isExpired()).isTrue();
		CountDownLatch afterThrow = new CountDownLatch(1);
		timer.newTimeout((timeout) -> afterThrow.countDown(), 1, TimeUnit.MILLISECONDS);
		assertThat(afterThrow.await(20, TimeUnit.SECONDS)).isTrue();
		Timeout pending = timer.newTimeout(new RecordingTask(), 1, TimeUnit.HOURS);
		assertThat(timer.stop()).containsExactly(pending);
		assertThat(timer.pendingTimeouts()).isZero();
	}

	@Test
	@org.junit.jupiter.api.Timeout(30)
	void stopFromATaskOnTheWorkerThreadThrows() throws Exception {
		WheelTimer timer = new WheelTimer(WheelTimerOptions.builder().tickDuration(Duration.ofMillis(1)).build());
		this.timers.add(timer);
		CompletableThrowable failure = new CompletableThrowable();
		timer.newTimeout((timeout) -> failure.complete(timer::stop), 1, TimeUnit.MILLISECONDS);
		assertThat(failure.await()).isInstanceOf(IllegalStateException.class);
	}

	@Test
	@org.junit.jupiter.api.Timeout(60)
	void workerThreadHandlesConcurrentScheduleAndCancel() throws Exception {
		WheelTimer timer = new WheelTimer(WheelTimerOptions.builder().tickDuration(Duration.ofMillis(1)).build());
		this.timers.add(timer);
		int threads = 4;
		int perThread = 50_000;
		AtomicInteger ran = new AtomicInteger();
		AtomicInteger cancelledCount = new AtomicInteger();
		TimerTask task = (timeout) -> ran.incrementAndGet();
		List<Thread> producers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			producers.add(new Thread(() -> {
				for (int i = 0; i < perThread; i++) {
					long delayNanos = (i % 50 == 0) ? i % 3_000_000 : TimeUnit.SECONDS.toNanos(2);
					Timeout timeout = timer.newTimeout(task, delayNanos, TimeUnit.NANOSECONDS);
					if (i % 50 != 0 && timeout.cancel()) {
						cancelledCount.incrementAndGet();
					}
				}
			}));
		}
		producers.forEach(Thread::start);
		for (Thread producer : producers) {
			producer.join();
		}
		int total = threads * perThread;
		while (ran.get() + cancelledCount.get() < total) {
			Thread.onSpinWait();
		}
		assertThat(ran.get() + cancelledCount.get()).isEqualTo(total);
		assertThat(timer.expiredTimeouts()).isEqualTo(ran.get());
		assertThat(timer.pendingTimeouts()).isZero();
		assertThat(timer.stop()).isEmpty();
	}

	@Test
	@org.junit.jupiter.api.Timeout(30)
	void idleWorkerProcessesNoTickUntilATimeoutIsScheduled() throws Exception {
		WheelTimer timer = new WheelTimer(WheelTimerOptions.builder().tickDuration(Duration.ofMillis(1)).build());
		this.timers.add(timer);
		CountDownLatch first = new CountDownLatch(1);
		timer.newTimeout((timeout) -> first.countDown(), 1, TimeUnit.MILLISECONDS);
		assertThat(first.await(10, TimeUnit.SECONDS)).isTrue();
		awaitSleeping(timer);
		long ticks = timer.workerTicks();
		// 200 ticks of 1 ms: a worker that ticks while idle would process about 200.
		Thread.sleep(200);
		assertThat(timer.workerTicks()).as("ticks processed while idle").isEqualTo(ticks);
		assertThat(timer.isWorkerSleeping()).isTrue();
		CountDownLatch second = new CountDownLatch(1);
		timer.newTimeout((timeout) -> second.countDown(), 1, TimeUnit.MILLISECONDS);
		assertThat(second.await(10, TimeUnit.SECONDS)).as("a timeout scheduled while the worker sleeps fires").isTrue();
	}

	@Test
	@org.junit.jupiter.api.Timeout(30)
	void workerWithOnlyAFarDeadlineSleepsUntilIt() throws Exception {
		WheelTimer timer = new WheelTimer(WheelTimerOptions.builder().tickDuration(Duration.ofMillis(1)).build());
		this.timers.add(timer);
		long delayNanos = TimeUnit.MILLISECONDS.toNanos(300);
		long scheduledAt = System.nanoTime();
		AtomicLong firedAfter = new AtomicLong();
		CountDownLatch fired = new CountDownLatch(1);
		timer.newTimeout((timeout) -> {
			firedAfter.set(System.nanoTime() - scheduledAt);
			fired.countDown();
		}, delayNanos, TimeUnit.NANOSECONDS);
		awaitSleeping(timer);
		long ticksWhileWaiting = timer.workerTicks();
		assertThat(fired.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(firedAfter.get()).isGreaterThanOrEqualTo(delayNanos);
		// One tick to link the timeout, one quiet tick before sleeping, one to expire it:
		// not 300.
		assertThat(timer.workerTicks()).as("ticks processed for one timeout 300 ticks away")
			.isLessThanOrEqualTo(ticksWhileWaiting + 2);
		assertThat(ticksWhileWaiting).isLessThanOrEqualTo(5);
	}

	@Test
	@org.junit.jupiter.api.Timeout(60)
	void noWakeUpIsLostWhenSchedulingRacesTheWorkerFallingAsleep() throws Exception {
		WheelTimer timer = new WheelTimer(WheelTimerOptions.builder().tickDuration(Duration.ofMillis(1)).build());
		this.timers.add(timer);
		// Each timeout is scheduled right after the previous one fired, while the worker
		// processes the quiet tick after it and decides to sleep: a lost wake-up leaves
		// the worker asleep with an empty wheel for good.
		for (int round = 0; round < 2000; round++) {
			CountDownLatch fired = new CountDownLatch(2);
			Thread other = new Thread(() -> timer.newTimeout((timeout) -> fired.countDown(), 0, TimeUnit.MILLISECONDS));
			if (round % 3 == 0) {
				LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_500_000));
			}
			other.start();
			timer.newTimeout((timeout) -> fired.countDown(), 0, TimeUnit.MILLISECONDS);
			other.join();
			assertThat(fired.await(5, TimeUnit.SECONDS)).as("round %d fired", round).isTrue();
		}
		assertThat(timer.expiredTimeouts()).isEqualTo(4000);
	}

	// Lettuce's first reconnect attempt has no delay: with a tick of 5 s, waiting for the
	// tick would take seconds, asleep or ticking.
	@Test
	@org.junit.jupiter.api.Timeout(30)
	void workerRunsATimeoutWithoutDelayAtOnce() throws Exception {
		WheelTimer timer = new WheelTimer(WheelTimerOptions.builder().tickDuration(Duration.ofSeconds(5)).build());
		this.timers.add(timer);
		timer.newTimeout(new RecordingTask(), 1, TimeUnit.HOURS);
		for (int i = 0; i < 3; i++) {
			long scheduledAt = System.nanoTime();
			AtomicLong firedAfter = new AtomicLong();
			CountDownLatch fired = new CountDownLatch(1);
			timer.newTimeout((timeout) -> {
				firedAfter.set(System.nanoTime() - scheduledAt);
				fired.countDown();
			}, 0, TimeUnit.MILLISECONDS);
			assertThat(fired.await(20, TimeUnit.SECONDS)).isTrue();
			assertThat(Duration.ofNanos(firedAfter.get())).as("run %d", i).isLessThan(Duration.ofSeconds(2));
		}
		assertThat(timer.pendingTimeouts()).isOne();
	}

	private static void awaitSleeping(WheelTimer timer) {
		await("worker asleep").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(1))
			.until(timer::isWorkerSleeping);
	}

	@Test
	void stopBeforeAnyTimeoutNeverStartsAThread() {
		AtomicInteger threadsCreated = new AtomicInteger();
		WheelTimer timer = new WheelTimer(WheelTimerOptions.builder().threadFactory((runnable) -> {
			threadsCreated.incrementAndGet();
			return new Thread(runnable);
		}).build());
		assertThat(timer.stop()).isEmpty();
		assertThat(threadsCreated).hasValue(1);
		assertThatIllegalStateException().isThrownBy(() -> timer.newTimeout(new RecordingTask(), 1, TimeUnit.SECONDS));
	}

	private WheelTimer manualTimer() {
		return manualTimer(WheelTimerOptions.builder());
	}

	private WheelTimer manualTimer(WheelTimerOptions.Builder builder) {
		return track(WheelTimer.withoutWorker(builder.ticker(this.ticker).build()));
	}

	private WheelTimer track(WheelTimer timer) {
		this.timers.add(timer);
		return timer;
	}

	private void advance(WheelTimer timer, Duration duration) {
		this.ticker.advance(duration);
		timer.advance();
	}

	private void advanceInSteps(WheelTimer timer, Duration duration, Duration step) {
		for (long elapsed = 0; elapsed < duration.toNanos(); elapsed += step.toNanos()) {
			advance(timer, step);
		}
	}

	/**
	 * When a timeout of the given delay fired, relative to when it was scheduled.
	 */
	private record FiredAt(long delayMillis, long elapsedNanos) {
	}

	/**
	 * Task counting its runs and cancellations.
	 */
	private static final class RecordingTask implements TimerTask {

		private final AtomicInteger runs = new AtomicInteger();

		private final AtomicInteger cancellations = new AtomicInteger();

		@Override
		public void run(Timeout timeout) {
			this.runs.incrementAndGet();
		}

		@Override
		public void cancelled(Timeout timeout) {
			this.cancellations.incrementAndGet();
		}

		int runs() {
			return this.runs.get();
		}

		int cancellations() {
			return this.cancellations.get();
		}

	}

	/**
	 * Captures what an action throws on another thread.
	 */
	private static final class CompletableThrowable {

		private final CountDownLatch done = new CountDownLatch(1);

		private final AtomicReference<Throwable> thrown = new AtomicReference<>();

		void complete(Runnable action) {
			try {
				action.run();
			}
			catch (Throwable ex) {
				this.thrown.set(ex);
			}
			this.done.countDown();
		}

		Throwable await() throws InterruptedException {
			this.done.await();
			return this.thrown.get();
		}

	}

}
