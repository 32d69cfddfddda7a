package io.github.lettucetuning.metrics;

import java.util.Locale;
import java.util.function.Function;
import java.util.function.ToIntFunction;

import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.resilience.SubscriptionWatch;
import io.github.lettucetuning.state.ConnectionSnapshot;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds {@code lettuce.tuning.connections}: the shared native connections of a
 * {@link LettuceTuningConnectionFactory} by {@code state} ({@code open},
 * {@code disconnected}, {@code unopened}), tagged with the connection {@code mode}; and
 * {@code lettuce.tuning.connection.in-flight}: what is in flight on each shared
 * connection, tagged with its {@code member} index and its {@code api}
 * ({@code imperative} counts operations, {@code reactive} counts commands), in every
 * selection policy. Pooled mode shares no connection and binds no in-flight gauge. Gauges
 * read the factory when scraped; nothing is recorded per command. Neither has a base
 * unit: the first name says what it counts, and the second counts operations or commands
 * depending on the {@code api}. Also {@code lettuce.tuning.subscriptions.lost}, how many
 * Pub/Sub subscriptions a reconnected connection did not restore in time since startup,
 * and {@code lettuce.tuning.subscriptions.unrestored}, those not restored now.
 *
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
		if (this.factory.getShareNativeConnection()) {
			for (int member = 0; member < this.factory.getSharedConnectionCount(); member++) {
				registerInFlight(registry, mode, "imperative", member,
						LettuceTuningConnectionFactory::getSharedInFlight);
				registerInFlight(registry, mode, "reactive", member,
						LettuceTuningConnectionFactory::getReactiveInFlight);
			}
		}
		SubscriptionWatch subscriptions = this.factory.getSubscriptionWatch();
		FunctionCounter.builder("lettuce.tuning.subscriptions.lost", subscriptions, SubscriptionWatch::lost)
			.description("Pub/Sub subscriptions a reconnected connection did not restore in time")
			.register(registry);
		Gauge.builder("lettuce.tuning.subscriptions.unrestored", subscriptions, (watch) -> watch.unrestored().size())
			.description("Pub/Sub subscriptions not restored now after a reconnect")
			.register(registry);
	}

	private void registerInFlight(MeterRegistry registry, String mode, String api, int member,
			Function<LettuceTuningConnectionFactory, int[]> counts) {
		Gauge.builder("lettuce.tuning.connection.in-flight", this.factory, (f) -> counts.apply(f)[member])
			.description("Operations (imperative) or commands (reactive) in flight on a shared native Redis connection")
			.tag("mode", mode)
			.tag("api", api)
			.tag("member", String.valueOf(member))
			.register(registry);
	}

	private void register(MeterRegistry registry, String mode, String state, ToIntFunction<ConnectionSnapshot> count) {
		Gauge.builder("lettuce.tuning.connections", this.factory, (f) -> count.applyAsInt(ConnectionSnapshot.of(f)))
			.description("Shared native Redis connections by state")
			.tag("mode", mode)
			.tag("state", state)
			.register(registry);
	}

}
