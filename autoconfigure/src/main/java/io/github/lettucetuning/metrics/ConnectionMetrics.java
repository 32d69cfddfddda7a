package io.github.lettucetuning.metrics;

import java.util.Locale;
import java.util.function.ToIntFunction;

import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.state.ConnectionSnapshot;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds {@code lettuce.tuning.connections}: the shared native connections of a
 * {@link LettuceTuningConnectionFactory} by {@code state} ({@code open},
 * {@code disconnected}, {@code unopened}), tagged with the connection {@code mode}.
 * Gauges read the factory when scraped; nothing is recorded per command.
 *
 * @author lettuce-tuning
 * @since 0.1.0
 */
public final class ConnectionMetrics implements MeterBinder {

	private final LettuceTuningConnectionFactory factory;

	/**
	 * Create a binder for the given factory.
	 * @param factory the connection factory
	 */
	public ConnectionMetrics(LettuceTuningConnectionFactory factory) {
		this.factory = factory;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		String mode = this.factory.getMode().name().toLowerCase(Locale.ROOT);
		register(registry, mode, "open", ConnectionSnapshot::open);
		register(registry, mode, "disconnected", ConnectionSnapshot::disconnected);
		register(registry, mode, "unopened", ConnectionSnapshot::unopened);
	}

	private void register(MeterRegistry registry, String mode, String state, ToIntFunction<ConnectionSnapshot> count) {
		Gauge.builder("lettuce.tuning.connections", this.factory, (f) -> count.applyAsInt(ConnectionSnapshot.of(f)))
			.description("Shared native Redis connections by state")
			.baseUnit("connections")
			.tag("mode", mode)
			.tag("state", state)
			.register(registry);
	}

}
