package io.github.lettucetuning.eventloop;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.lettucetuning.timeout.WheelTimer;
import io.netty.channel.DefaultEventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The watchdog over a real Netty event loop and a real timer: a loop held by a task while
 * a command waits is noticed, named and timed; a loop busy with a backlog of tasks that
 * move the waiting count is not blocked; a loop on which nothing waits is not watched at
 * all.
 */
@Timeout(30)
class EventLoopWatchdogTests {

	private static final Duration THRESHOLD = Duration.ofMillis(200);

	private final DefaultEventLoop loop = new DefaultEventLoop();

	private final WheelTimer timer = new WheelTimer();

	private final EventLoopWatchdog watchdog = new EventLoopWatchdog(THRESHOLD, () -> this.timer);

	private final AtomicInteger waiting = new AtomicInteger();

	private final CountDownLatch release = new CountDownLatch(1);

	@AfterEach
	void stop() throws Exception {
		this.release.countDown();
		this.watchdog.close();
		this.timer.stop();
		this.loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
	}

	@Test
	void aLoopHeldWhileACommandWaitsIsNamedAndTimed() throws Exception {
		LoopWatch watch = watchOneConnection();
		this.waiting.set(3);
		String thread = this.loop.submit(() -> Thread.currentThread().getName()).get();
		this.loop.submit(watch::commandWritten).get();
		this.loop.execute(this::hold);
		await().atMost(Duration.ofSeconds(2)).until(() -> !this.watchdog.blockedNow().isEmpty());
		BlockedEventLoop blocked = this.watchdog.blockedNow().get(0);
		assertThat(blocked.thread()).isEqualTo(thread);
		assertThat(blocked.waitingCommands()).isEqualTo(3);
		assertThat(blocked.blockedAt()).startsWith(getClass().getName() + ".hold");
		assertThat(blocked.duration()).isGreaterThanOrEqualTo(THRESHOLD);
		assertThat(this.watchdog.blockedSpells()).isOne();
		Thread.sleep(300);
		this.release.countDown();
		await().atMost(Duration.ofSeconds(2)).until(() -> this.watchdog.lastBlocked() != null);
		assertThat(this.watchdog.lastBlocked().duration()).isBetween(Duration.ofMillis(500), Duration.ofSeconds(2));
		assertThat(this.watchdog.blockedNow()).isEmpty();
		assertThat(this.watchdog.blockedSpells()).isOne();
		assertThat(this.watchdog.pauses()).isZero();
	}

	@Test
	void aLoopBusyWithABacklogIsNotBlockedButOneHeldAfterItIs() throws Exception {
		LoopWatch watch = watchOneConnection();
		this.waiting.set(3);
		this.loop.submit(watch::commandWritten).get();
		CountDownLatch backlogDone = new CountDownLatch(1);
		// 1.5 s of tasks, each moving the waiting count as writes and replies do: the
		// probe waits behind them for seven thresholds while the loop runs all along.
		backlog(150);
		this.loop.execute(backlogDone::countDown);
		this.loop.execute(this::hold);
		assertThat(backlogDone.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(this.watchdog.blockedSpells()).isZero();
		await().atMost(Duration.ofSeconds(2)).until(() -> this.watchdog.blockedSpells() == 1);
		assertThat(this.watchdog.blockedNow()).singleElement()
			.satisfies((blocked) -> assertThat(blocked.blockedAt()).startsWith(getClass().getName() + ".hold"));
	}

	@Test
	void aSpellEndsWhenTheLoopRunsAgainNotWhenTheBacklogBehindItIsThrough() throws Exception {
		LoopWatch watch = watchOneConnection();
		this.waiting.set(3);
		this.loop.submit(watch::commandWritten).get();
		this.loop.execute(() -> sleep(600));
		backlog(150);
		await().atMost(Duration.ofSeconds(2)).until(() -> this.watchdog.blockedSpells() == 1);
		await().atMost(Duration.ofSeconds(2)).until(() -> this.watchdog.lastBlocked() != null);
		assertThat(this.watchdog.blockedNow()).isEmpty();
		// The hold lasted 0.6 s from about the first tick; the backlog another 1.5 s.
		assertThat(this.watchdog.lastBlocked().duration()).isBetween(THRESHOLD, Duration.ofMillis(1100));
		assertThat(this.watchdog.blockedSpells()).isOne();
	}

	@Test
	void aLoopOnWhichNothingWaitsIsNotWatched() throws Exception {
		LoopWatch watch = watchOneConnection();
		this.loop.submit(watch::commandWritten).get();
		// One probe finds nothing waiting and puts the watch to rest; the timer then
		// holds
		// nothing of the watchdog's.
		await().atMost(Duration.ofSeconds(2)).until(() -> this.timer.pendingTimeouts() == 0);
		this.loop.execute(this::hold);
		Thread.sleep(3 * THRESHOLD.toMillis());
		assertThat(this.timer.pendingTimeouts()).isZero();
		assertThat(this.watchdog.blockedNow()).isEmpty();
		assertThat(this.watchdog.blockedSpells()).isZero();
	}

	@Test
	void aCommandWrittenAfterARestWakesTheWatch() throws Exception {
		LoopWatch watch = watchOneConnection();
		this.loop.submit(watch::commandWritten).get();
		await().atMost(Duration.ofSeconds(2)).until(() -> this.timer.pendingTimeouts() == 0);
		this.waiting.set(1);
		this.loop.submit(watch::commandWritten).get();
		this.loop.execute(this::hold);
		await().atMost(Duration.ofSeconds(2)).until(() -> this.watchdog.blockedSpells() == 1);
	}

	@Test
	void anOwnTimerStartsWhenACommandFirstWaitsAndStopsWithTheWatchdog() throws Exception {
		EventLoopWatchdog own = new EventLoopWatchdog(THRESHOLD);
		try {
			assertThat(watchdogThreads()).isZero();
			LoopWatch watch = own.watch(this.loop);
			watch.add(this.waiting::get);
			this.waiting.set(1);
			this.loop.submit(watch::commandWritten).get();
			assertThat(watchdogThreads()).isOne();
			this.loop.execute(this::hold);
			await().atMost(Duration.ofSeconds(2)).until(() -> own.blockedSpells() == 1);
		}
		finally {
			own.close();
		}
		await().atMost(Duration.ofSeconds(2)).until(() -> watchdogThreads() == 0);
	}

	private static long watchdogThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().equals(EventLoopWatchdog.TIMER_THREAD_NAME) && thread.isAlive())
			.count();
	}

	@Test
	void aThresholdMustBePositive() {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> new EventLoopWatchdog(Duration.ZERO, () -> this.timer))
			.withMessage("threshold must be positive, was PT0S");
	}

	private LoopWatch watchOneConnection() {
		LoopWatch watch = this.watchdog.watch(this.loop);
		assertThat(this.watchdog.watch(this.loop)).isSameAs(watch);
		watch.add(this.waiting::get);
		return watch;
	}

	private void backlog(int tasks) {
		for (int i = 0; i < tasks; i++) {
			this.loop.execute(() -> {
				this.waiting.incrementAndGet();
				sleep(10);
			});
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void hold() {
		try {
			this.release.await(10, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
