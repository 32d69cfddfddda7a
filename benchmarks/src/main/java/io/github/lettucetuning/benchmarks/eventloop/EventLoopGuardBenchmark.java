package io.github.lettucetuning.benchmarks.eventloop;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.eventloop.BlockingCallGuard;
import io.github.lettucetuning.eventloop.EventLoopWatchdog;
import io.github.lettucetuning.eventloop.LoopWatch;
import io.github.lettucetuning.timeout.WheelTimer;
import io.netty.channel.DefaultEventLoop;
import org.openjdk.jmh.annotations.Benchmark;
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
 * What the event-loop guards add per command, in nanoseconds: the check a synchronous
 * Spring Data call makes before it takes a connection ({@code guardCheck}), and what the
 * outage guard's handler tells the loop's watch of each command written while the watch
 * is awake ({@code commandWritten}, the steady state under load), each beside an empty
 * benchmark that reads a field ({@code baseline}). About 1 minute.
 *
 * @since 0.2.0
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 2)
public class EventLoopGuardBenchmark {

	private final DefaultEventLoop loop = new DefaultEventLoop();

	private final WheelTimer timer = new WheelTimer();

	private final EventLoopWatchdog watchdog = new EventLoopWatchdog(Duration.ofMillis(500), () -> this.timer);

	private LoopWatch watch;

	private int field = 1;

	@Setup(Level.Trial)
	public void wakeTheWatch() {
		this.watch = this.watchdog.watch(this.loop);
		// One command always waits, so the probes keep the watch awake.
		this.watch.add(() -> 1);
		this.watch.commandWritten();
	}

	@TearDown(Level.Trial)
	public void stop() throws InterruptedException {
		this.watchdog.close();
		this.timer.stop();
		this.loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
	}

	@Benchmark
	public int baseline() {
		return this.field;
	}

	@Benchmark
	public int guardCheck() {
		BlockingCallGuard.rejectOnEventLoop();
		return this.field;
	}

	@Benchmark
	public int commandWritten() {
		this.watch.commandWritten();
		return this.field;
	}

}
