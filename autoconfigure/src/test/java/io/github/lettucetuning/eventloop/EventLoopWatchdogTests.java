package io.github.lettucetuning.eventloop;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.lettucetuning.timeout.WheelTimer;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.MapOutput;
import io.lettuce.core.protocol.RedisStateMachine;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultEventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The watchdog over a real Netty event loop and a real timer: a loop held by a task while
 * a command waits is noticed, named and timed; a loop busy with a backlog of tasks that
 * move the waiting count is not blocked; a loop on which nothing waits is not watched at
 * all.
 */
@Timeout(30)
@ExtendWith(OutputCaptureExtension.class)
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
		// The hold is awaited as a state, not read once after the count: on a loaded
		// machine (CI once logged a 0.5 s pause of the whole JVM here) a late tick can
		// end the spell that the backlog's tail seemed to start, and the hold then
		// starts another.
		await().atMost(Duration.ofSeconds(3)).until(() -> !this.watchdog.blockedNow().isEmpty());
		assertThat(this.watchdog.blockedSpells()).isPositive();
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
	void aSpellThatMayBeStartingIsAwaitedAndALoopThatRunsIsNot() throws Exception {
		LoopWatch watch = watchOneConnection();
		this.waiting.set(3);
		this.loop.submit(watch::commandWritten).get();
		long start = System.nanoTime();
		assertThat(this.watchdog.blockedNowOrSoon()).isEmpty();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(THRESHOLD);
		this.loop.execute(this::hold);
		// A probe left unrun, before the threshold has passed.
		await().atMost(Duration.ofSeconds(2))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> watch.quiet(TimeUnit.MILLISECONDS.toNanos(50)));
		assertThat(this.watchdog.blockedNowOrSoon()).singleElement()
			.satisfies((blocked) -> assertThat(blocked.blockedAt()).startsWith(getClass().getName() + ".hold"));
	}

	@Test
	void oneProcessPauseOverSeveralBusyLoopsIsCountedAndLoggedOnce(CapturedOutput output) throws Exception {
		List<DefaultEventLoop> loops = List.of(new DefaultEventLoop(), new DefaultEventLoop(), new DefaultEventLoop());
		try {
			for (DefaultEventLoop other : loops) {
				LoopWatch watch = this.watchdog.watch(other);
				watch.add(() -> 2);
				other.submit(watch::commandWritten).get();
			}
			// The timer's thread held for three thresholds: every loop's tick comes late.
			holdTimer(Duration.ofMillis(600));
			await().atMost(Duration.ofSeconds(3)).until(() -> this.watchdog.pauses() >= 1);
			Thread.sleep(4 * THRESHOLD.toMillis());
			assertThat(this.watchdog.pauses()).isOne();
			assertThat(occurrences(output.getAll(), "The JVM did not run for about")).isOne();
			assertThat(output).contains("while 6 commands waited for Redis replies");
			// A later pause is another one.
			holdTimer(Duration.ofMillis(600));
			await().atMost(Duration.ofSeconds(3)).until(() -> this.watchdog.pauses() == 2);
			Thread.sleep(4 * THRESHOLD.toMillis());
			assertThat(this.watchdog.pauses()).isEqualTo(2);
			assertThat(occurrences(output.getAll(), "The JVM did not run for about")).isEqualTo(2);
			assertThat(this.watchdog.blockedSpells()).isZero();
		}
		finally {
			for (DefaultEventLoop other : loops) {
				other.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
			}
		}
	}

	@Test
	void tasksQueuedBehindTheBlockAreCountedAndLogged(CapturedOutput output) throws Exception {
		LoopWatch watch = watchOneConnection();
		this.waiting.set(1);
		this.loop.submit(watch::commandWritten).get();
		this.loop.execute(this::hold);
		// Callers' writes handed to the loop from other threads wait in its queue.
		for (int i = 0; i < 5; i++) {
			this.loop.execute(() -> this.waiting.incrementAndGet());
		}
		await().atMost(Duration.ofSeconds(2)).until(() -> !this.watchdog.blockedNow().isEmpty());
		BlockedEventLoop blocked = this.watchdog.blockedNow().get(0);
		assertThat(blocked.waitingCommands()).isOne();
		assertThat(blocked.queuedTasks()).isEqualTo(5);
		assertThat(output).contains("while 1 commands wait for replies on its connections and 5 tasks wait in its "
				+ "queue (commands callers handed it that it has not written yet among them)");
	}

	@Test
	void aLoopDecodingALargeReplyIsToldApartFromApplicationCode(CapturedOutput output) throws Exception {
		LoopWatch watch = watchOneConnection();
		this.waiting.set(1);
		this.loop.submit(watch::commandWritten).get();
		ByteBuf reply = hashReply(200_000);
		try {
			this.loop.execute(() -> {
				while (this.release.getCount() > 0) {
					MapOutput<String, String> map = new MapOutput<>(StringCodec.UTF8);
					new RedisStateMachine().decode(reply.duplicate(), map);
				}
			});
			await().atMost(Duration.ofSeconds(5)).until(() -> !this.watchdog.blockedNow().isEmpty());
			assertThat(this.watchdog.blockedNow()).singleElement()
				.satisfies((blocked) -> assertThat(blocked.blockedAt()).doesNotContain(getClass().getName()));
			// The output shows when the stack is sampled inside it, not while bytes are
			// read.
			assertThat(output).contains("it is decoding a large Redis reply")
				.contains("HSCAN")
				.doesNotContain("code running on it blocks it");
		}
		finally {
			this.release.countDown();
			this.loop.submit(() -> reply.release()).get();
		}
	}

	private static ByteBuf hashReply(int fields) {
		StringBuilder resp = new StringBuilder("*").append(2 * fields).append("\r\n");
		for (int i = 0; i < fields; i++) {
			String field = "field-" + i;
			String value = "value-" + i;
			resp.append('$').append(field.length()).append("\r\n").append(field).append("\r\n");
			resp.append('$').append(value.length()).append("\r\n").append(value).append("\r\n");
		}
		return Unpooled.copiedBuffer(resp, StandardCharsets.US_ASCII);
	}

	private void holdTimer(Duration duration) {
		this.timer.newTimeout((timeout) -> sleep(duration.toMillis()), 1, TimeUnit.MILLISECONDS);
	}

	private static int occurrences(String text, String part) {
		return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
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
