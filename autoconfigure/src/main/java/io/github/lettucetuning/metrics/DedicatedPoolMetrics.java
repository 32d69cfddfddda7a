package io.github.lettucetuning.metrics;

import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import io.github.lettucetuning.state.ClientStateReader;
import io.github.lettucetuning.state.PoolSnapshot;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the {@code lettuce.tuning.pool.*} meters of the dedicated-connection pool: active
 * and idle connections and waiting threads, the maximum size, created, destroyed and
 * borrowed counters and the longest borrow wait. Meters read the pool's
 * {@link PoolSnapshot} in the client's state when scraped, summed over its per-type
 * pools.
 * <p>
 * Micrometer's {@code CommonsObjectPool2Metrics} would find these pools through JMX, but
 * under commons-pool2's generic names ({@code pool}, {@code pool1}, …) next to every
 * other commons-pool2 pool in the JVM; binding the pools directly keeps the meters
 * unambiguous.
 *
 * @since 0.1.0
 */
public final class DedicatedPoolMetrics implements MeterBinder {

	private final ClientStateReader state;

	/**
	 * Create a binder over the given reader.
	 * @param state the reader of the running client
	 */
	public DedicatedPoolMetrics(ClientStateReader state) {
		this.state = state;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		gauge(registry, "active", "Dedicated connections borrowed now", "connections", PoolSnapshot::active);
		gauge(registry, "idle", "Dedicated connections idle in the pool", "connections", PoolSnapshot::idle);
		gauge(registry, "waiting", "Threads waiting for a dedicated connection", "threads", PoolSnapshot::waiting);
		Gauge
			.builder("lettuce.tuning.pool.max", this.state,
					(reader) -> read(reader, (s) -> (s.max() != null) ? s.max() : Double.NaN))
			.description("Maximum number of dedicated connections per pool")
			.baseUnit("connections")
			.register(registry);
		counter(registry, "created", "Dedicated connections created", PoolSnapshot::created);
		counter(registry, "destroyed", "Dedicated connections destroyed", PoolSnapshot::destroyed);
		counter(registry, "borrowed", "Dedicated connections borrowed", PoolSnapshot::borrowed);
		TimeGauge
			.builder("lettuce.tuning.pool.borrow.wait.max", this.state, TimeUnit.MILLISECONDS,
					(reader) -> read(reader, (s) -> s.maxBorrowWait().toNanos() / 1e6))
			.description("Longest time a caller waited for a dedicated connection")
			.register(registry);
	}

	private void gauge(MeterRegistry registry, String name, String description, String baseUnit,
			ToDoubleFunction<PoolSnapshot> value) {
		Gauge.builder("lettuce.tuning.pool." + name, this.state, (reader) -> read(reader, value))
			.description(description)
			.baseUnit(baseUnit)
			.register(registry);
	}

	private void counter(MeterRegistry registry, String name, String description,
			ToDoubleFunction<PoolSnapshot> value) {
		FunctionCounter.builder("lettuce.tuning.pool." + name, this.state, (reader) -> read(reader, value))
			.description(description)
			.baseUnit("connections")
			.register(registry);
	}

	private static double read(ClientStateReader state, ToDoubleFunction<PoolSnapshot> value) {
		PoolSnapshot snapshot = state.read().pool();
		return (snapshot != null) ? value.applyAsDouble(snapshot) : 0;
	}

}
