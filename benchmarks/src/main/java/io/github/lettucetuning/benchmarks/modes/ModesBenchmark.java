package io.github.lettucetuning.benchmarks.modes;

import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.benchmarks.support.KeySpace;
import io.github.lettucetuning.benchmarks.support.RedisBenchmarkState;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * SET, GET and an 80/20 GET/SET mix of 32-byte values over 10,000 keys, for every client
 * setup of {@link ClientSetups}. Run it twice, with {@code -t 16} and {@code -t 200}.
 * Read JMH's score next to the server-counted rate in the side file: with far more
 * threads than cores, JMH's own count is inflated and unstable.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgs = { "-Xms1g", "-Xmx1g", "-XX:+UseG1GC" })
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 3, time = 3)
@Threads(200)
public class ModesBenchmark extends RedisBenchmarkState {

	@Param({ "jedis-pool-8", "jedis-pool-50", "jedis-pool-200", "lettuce-shared", "lettuce-pool-8", "lettuce-pool-200",
			"lettuce-multi-1x", "lettuce-multi-2x", "lettuce-multi-4x", "boot-lettuce", "boot-lettuce-pool2",
			"boot-lettuce-pool2-epoll", "boot-lettuce-unshared-8", "boot-jedis-8", "boot-jedis-50", "tuning-shared",
			"tuning-shared-unmerged", "tuning-multi-1x", "tuning-multi-1x-affinity", "tuning-multi-2x",
			"tuning-pooled-8" })
	public String setup = "";

	private RedisOps ops = RedisOps.CLOSED;

	@Override
	protected void openClient(String host, int port) {
		this.ops = ClientSetups.open(this.setup, host, port);
		ClientSetups.check(this.setup, this.ops);
	}

	@Override
	protected void closeClient() throws Exception {
		RedisOps open = this.ops;
		this.ops = RedisOps.CLOSED;
		open.close();
	}

	@Benchmark
	public String set() {
		return this.ops.set(KeySpace.randomKey(), KeySpace.VALUE);
	}

	@Benchmark
	public @Nullable String get() {
		return this.ops.get(KeySpace.randomKey());
	}

	@Benchmark
	public @Nullable String mix() {
		String key = KeySpace.randomKey();
		return KeySpace.nextIsSet() ? this.ops.set(key, KeySpace.VALUE) : this.ops.get(key);
	}

}
