package io.github.lettucetuning.benchmarks.support;

import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerLauncher;
import io.github.lettucetuning.testsupport.server.RespClient;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;

/**
 * Base of the end-to-end benchmarks: each trial (one per fork) starts its own
 * redis-server on a free loopback port, writes every key of the {@link KeySpace}, opens
 * the client under test and records server-side counters per iteration (see
 * {@link IterationRecorder}). Subclasses open and close their client; they declare no
 * {@code @Setup} or {@code @TearDown} methods of their own, so the order is fixed here.
 */
@State(Scope.Benchmark)
public abstract class RedisBenchmarkState {

	private static final int MSET_CHUNK = 1000;

	private @Nullable RedisNode node;

	private @Nullable IterationRecorder recorder;

	private final OperationLatencies latencies = new OperationLatencies();

	/**
	 * Start the server, write the keys and open the client.
	 * @param benchmark the JMH parameters of the trial
	 * @throws Exception if the client cannot be opened
	 */
	@Setup(Level.Trial)
	public final void startTrial(BenchmarkParams benchmark) throws Exception {
		RedisNode started = new RedisServerLauncher().start();
		this.node = started;
		try (RespClient admin = started.connect()) {
			for (String[] mset : KeySpace.msetCommands(MSET_CHUNK)) {
				admin.command(mset);
			}
		}
		this.recorder = new IterationRecorder(new ServerCounter(started), benchmark, SideFile.fromSystemProperty(),
				started.pid(), this.latencies);
		openClient(started.host(), started.port());
	}

	/**
	 * Take the counters at the start of an iteration.
	 * @param iteration the JMH parameters of the iteration
	 */
	@Setup(Level.Iteration)
	public final void beginIteration(IterationParams iteration) {
		IterationRecorder current = this.recorder;
		if (current != null) {
			current.begin(iteration);
		}
	}

	/**
	 * Take the counters at the end of an iteration and record the difference.
	 */
	@TearDown(Level.Iteration)
	public final void endIteration() {
		IterationRecorder current = this.recorder;
		if (current != null) {
			current.end();
		}
	}

	/**
	 * Close the client, then stop the server.
	 * @throws Exception if the client fails to close
	 */
	@TearDown(Level.Trial)
	public final void stopTrial() throws Exception {
		try {
			closeClient();
		}
		finally {
			IterationRecorder current = this.recorder;
			if (current != null) {
				current.close();
			}
			RedisNode started = this.node;
			if (started != null) {
				started.stop();
			}
		}
	}

	/**
	 * Return where subclasses record the latency of each operation; iterations without
	 * records report none.
	 * @return the latencies of the trial
	 */
	protected final OperationLatencies latencies() {
		return this.latencies;
	}

	/**
	 * Open the client under test.
	 * @param host the server's host
	 * @param port the server's port
	 * @throws Exception if the client cannot be opened
	 */
	protected abstract void openClient(String host, int port) throws Exception;

	/**
	 * Close the client under test.
	 * @throws Exception if the client fails to close
	 */
	protected abstract void closeClient() throws Exception;

}
