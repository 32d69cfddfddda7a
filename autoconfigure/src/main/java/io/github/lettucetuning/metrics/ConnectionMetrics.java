package io.github.lettucetuning.metrics;

import java.util.List;
import java.util.function.Function;
import java.util.function.ToIntFunction;

import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.state.ClientStateReader;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds {@code lettuce.tuning.connections}: the shared native connections of the tuned
 * connection factory by {@code state} ({@code open}, {@code disconnected},
 * {@code unopened}), tagged with the connection {@code mode}; and
 * {@code lettuce.tuning.connection.in-flight}: what is in flight on each shared
 * connection, tagged with its {@code member} index and its {@code api}
 * ({@code imperative} counts operations, {@code reactive} counts commands), in every
 * selection policy. Pooled mode shares no connection and binds no in-flight gauge. Gauges
 * read the {@link ClientState} when scraped; nothing is recorded per command. Neither has
 * a base unit: the first name says what it counts, and the second counts operations or
 * commands depending on the {@code api}. Also {@code lettuce.tuning.subscriptions.lost},
 * how many Pub/Sub subscriptions a reconnected connection did not restore in time since
 * startup, and {@code lettuce.tuning.subscriptions.unrestored}, those not restored now.
 *
 * @since 0.1.0
 */
public final class ConnectionMetrics implements MeterBinder {

	private final ClientStateReader state;

	/**
	 * Create a binder over the given reader.
	 * @param state the reader of the running client
	 */
	public ConnectionMetrics(ClientStateReader state) {
		this.state = state;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		ClientState now = this.state.read();
		String mode = now.mode();
		register(registry, mode, "open", ClientState.Connections::open);
		register(registry, mode, "disconnected", ClientState.Connections::disconnected);
		register(registry, mode, "unopened", ClientState.Connections::unopened);
		// Pooled mode shares no connection, and lists nothing in flight.
		int members = now.connections().inFlight().size();
		for (int member = 0; member < members; member++) {
			registerInFlight(registry, mode, "imperative", member, ClientState.Connections::inFlight);
			registerInFlight(registry, mode, "reactive", member, ClientState.Connections::reactiveInFlight);
		}
		FunctionCounter
			.builder("lettuce.tuning.subscriptions.lost", this.state, (reader) -> reader.read().subscriptions().lost())
			.description("Pub/Sub subscriptions a reconnected connection did not restore in time")
			.register(registry);
		Gauge
			.builder("lettuce.tuning.subscriptions.unrestored", this.state,
					(reader) -> reader.read().subscriptions().unrestored().size())
			.description("Pub/Sub subscriptions not restored now after a reconnect")
			.register(registry);
	}

	private void registerInFlight(MeterRegistry registry, String mode, String api, int member,
			Function<ClientState.Connections, List<Integer>> counts) {
		Gauge
			.builder("lettuce.tuning.connection.in-flight", this.state,
					(reader) -> at(counts.apply(reader.read().connections()), member))
			.description("Operations (imperative) or commands (reactive) in flight on a shared native Redis connection")
			.tag("mode", mode)
			.tag("api", api)
			.tag("member", String.valueOf(member))
			.register(registry);
	}

	private static int at(List<Integer> counts, int member) {
		return (member < counts.size()) ? counts.get(member) : 0;
	}

	private void register(MeterRegistry registry, String mode, String state,
			ToIntFunction<ClientState.Connections> count) {
		Gauge
			.builder("lettuce.tuning.connections", this.state,
					(reader) -> count.applyAsInt(reader.read().connections()))
			.description("Shared native Redis connections by state")
			.tag("mode", mode)
			.tag("state", state)
			.register(registry);
	}

}
