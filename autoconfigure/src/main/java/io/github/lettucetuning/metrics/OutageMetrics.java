package io.github.lettucetuning.metrics;

import java.util.function.ToDoubleFunction;

import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.state.ClientStateReader;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the meters of the outage guard: {@code lettuce.tuning.commands.waiting}, the
 * commands sent on open connections that await a reply (the request queue, which is
 * bounded per connection), and {@code lettuce.tuning.connections.unreachable}, the
 * connections whose commands fail fast because their server has been unreachable for
 * longer than the grace or stopped answering. With a watchdog over the event loops, also
 * {@code lettuce.tuning.event.loop.blocked}, how many times an event loop was found
 * blocked by the application, {@code lettuce.tuning.event.loops.blocked}, the loops
 * blocked now, and {@code lettuce.tuning.process.pauses}, how many times the whole
 * process was found paused while commands waited. Also
 * {@code lettuce.tuning.maintenance.notifications}, the maintenance notifications the
 * connections received, and {@code lettuce.tuning.maintenance.connections}, the
 * connections in a maintenance window the server announced,
 * {@code lettuce.tuning.maintenance.relaxed.commands}, the commands written in such a
 * window, and {@code lettuce.tuning.connections.moved}, the reconnects that landed on
 * another server address (a {@code MOVING} notification, a DNS name that moved, a
 * Sentinel failover, a demoted primary). The names say what they count, so none has a
 * base unit that Prometheus would append again. Each reads the {@link ClientState} when
 * scraped, and reads zero while the guard is not on the connections.
 *
 * @since 0.1.0
 */
public final class OutageMetrics implements MeterBinder {

	private final ClientStateReader state;

	/**
	 * Create a binder over the given reader.
	 * @param state the reader of the running client
	 */
	public OutageMetrics(ClientStateReader state) {
		this.state = state;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("lettuce.tuning.commands.waiting", this.state, outages(ClientState.Outages::waitingCommands))
			.description("Commands sent on open connections that await a reply")
			.register(registry);
		Gauge
			.builder("lettuce.tuning.connections.unreachable", this.state,
					(reader) -> reader.read().unreachable().size())
			.description("Connections whose commands fail fast because their server is unreachable")
			.register(registry);
		FunctionCounter
			.builder("lettuce.tuning.maintenance.notifications", this.state,
					maintenance(ClientState.Maintenance::notifications))
			.description("Maintenance notifications (MIGRATING, MIGRATED, FAILING_OVER, FAILED_OVER, MOVING) received")
			.register(registry);
		Gauge
			.builder("lettuce.tuning.maintenance.connections", this.state,
					(reader) -> reader.read().connectionsInMaintenanceWindow())
			.description("Connections in a maintenance window the server announced and has not yet ended")
			.register(registry);
		FunctionCounter
			.builder("lettuce.tuning.maintenance.relaxed.commands", this.state,
					maintenance(ClientState.Maintenance::relaxedCommands))
			.description("Commands written in an announced maintenance window, with Lettuce's relaxed timeout")
			.register(registry);
		FunctionCounter
			.builder("lettuce.tuning.connections.moved", this.state, outages(ClientState.Outages::connectionsMoved))
			.description("Reconnects that landed on another server address than the connection had before")
			.register(registry);
		if (this.state.watchesEventLoops()) {
			bindEventLoops(registry);
		}
	}

	private void bindEventLoops(MeterRegistry registry) {
		FunctionCounter
			.builder("lettuce.tuning.event.loop.blocked", this.state, eventLoops(ClientState.EventLoops::blockedSpells))
			.description("Times an event loop of the client was found blocked while commands waited")
			.register(registry);
		Gauge.builder("lettuce.tuning.event.loops.blocked", this.state, (reader) -> reader.read().blockedLoops().size())
			.description("Event loops of the client blocked now while commands wait")
			.register(registry);
		FunctionCounter
			.builder("lettuce.tuning.process.pauses", this.state, eventLoops(ClientState.EventLoops::processPauses))
			.description("Times the whole process was found paused while commands waited")
			.register(registry);
	}

	private static ToDoubleFunction<ClientStateReader> outages(ToDoubleFunction<ClientState.Outages> value) {
		return (reader) -> {
			ClientState.Outages outages = reader.read().outages();
			return (outages != null) ? value.applyAsDouble(outages) : 0;
		};
	}

	private static ToDoubleFunction<ClientStateReader> maintenance(ToDoubleFunction<ClientState.Maintenance> value) {
		return outages((outages) -> value.applyAsDouble(outages.maintenance()));
	}

	private static ToDoubleFunction<ClientStateReader> eventLoops(ToDoubleFunction<ClientState.EventLoops> value) {
		return (reader) -> {
			ClientState.EventLoops eventLoops = reader.read().eventLoops();
			return (eventLoops != null) ? value.applyAsDouble(eventLoops) : 0;
		};
	}

}
