package io.github.lettucetuning.connection;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import org.apache.commons.pool2.BasePooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One borrow and return of a connection, as pooled mode makes for every command, through
 * a commons-pool2 pool set up as {@link DedicatedConnectionPool} sets up its pools in
 * pooled mode (unfair, no test on borrow, Boot's default sizes) and with each of the two
 * pooled-object wrappers: the project's own {@link ConnectionPooledObject}
 * ({@code wrapper=own}) and commons-pool2's {@link DefaultPooledObject}
 * ({@code wrapper=commons}). The connection is a stub that no pool call touches, so the
 * figures are the pool's bookkeeping alone. Read {@code gc.alloc.rate.norm} (bytes per
 * borrow and return, with {@code -prof gc}) and the time per operation.
 * <p>
 * It lives in the package of the class it measures because that class is package-private.
 * {@code benchmarks/scripts/paired-pooled-object.sh} runs the two wrappers in alternating
 * forks and prints the per-round ratios.
 *
 * @since 0.2.0
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xms1g", "-Xmx1g" })
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class PooledObjectBenchmark {

	private static final Duration MAX_WAIT = Duration.ofSeconds(60);

	@Param({ "own", "commons" })
	public String wrapper;

	private GenericObjectPool<StatefulConnection<?, ?>> pool;

	@Setup(Level.Trial)
	public void createPool() throws Exception {
		GenericObjectPoolConfig<StatefulConnection<?, ?>> config = new GenericObjectPoolConfig<>();
		config.setMaxWait(MAX_WAIT);
		config.setFairness(false);
		config.setJmxEnabled(false);
		this.pool = new GenericObjectPool<>(new StubFactory("own".equals(this.wrapper)), config);
		this.pool.preparePool();
		this.pool.addObjects(2);
	}

	@TearDown(Level.Trial)
	public void closePool() {
		this.pool.close();
	}

	@Benchmark
	@Threads(1)
	public StatefulConnection<?, ?> borrowAndReturn() throws Exception {
		return borrowAndReturn(this.pool);
	}

	@Benchmark
	@Threads(2)
	public StatefulConnection<?, ?> borrowAndReturn_t02() throws Exception {
		return borrowAndReturn(this.pool);
	}

	private static StatefulConnection<?, ?> borrowAndReturn(GenericObjectPool<StatefulConnection<?, ?>> pool)
			throws Exception {
		StatefulConnection<?, ?> connection = pool.borrowObject(MAX_WAIT);
		pool.returnObject(connection);
		return connection;
	}

	private static final class StubFactory extends BasePooledObjectFactory<StatefulConnection<?, ?>> {

		private final boolean own;

		StubFactory(boolean own) {
			this.own = own;
		}

		@Override
		public StatefulConnection<?, ?> create() {
			return (StatefulConnection<?, ?>) Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { StatefulRedisConnection.class },
					(proxy, method, args) -> switch (method.getName()) {
						case "hashCode" -> System.identityHashCode(proxy);
						case "equals" -> proxy == args[0];
						case "toString" -> "stub connection";
						default -> throw new UnsupportedOperationException(method.getName());
					});
		}

		@Override
		public PooledObject<StatefulConnection<?, ?>> wrap(StatefulConnection<?, ?> connection) {
			return this.own ? new ConnectionPooledObject(connection) : new DefaultPooledObject<>(connection);
		}

	}

}
