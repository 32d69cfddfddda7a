package io.github.lettucetuning.metrics;

import io.github.lettucetuning.eventloop.EventLoopWatchdog;
import io.github.lettucetuning.resilience.MaintenanceNotifications;
import io.github.lettucetuning.resilience.OutageGuard;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds the meters of the {@link OutageGuard}: {@code lettuce.tuning.commands.waiting},
 * the commands sent on open connections that await a reply (the request queue, which is
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
 * base unit that Prometheus would append again.
 *
 * @since 0.1.0
 */
public final class OutageMetrics implements MeterBinder {

	private final OutageGuard guard;

	/**
	 * Create a binder for the given guard.
	 * @param guard the guard on the client's connections
	 */
	public OutageMetrics(OutageGuard guard) {
		this.guard = guard;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		Gauge.builder("lettuce.tuning.commands.waiting", this.guard, OutageGuard::waitingCommands)
			.description("Commands sent on open connections that await a reply")
			.register(registry);
		Gauge.builder("lettuce.tuning.connections.unreachable", this.guard, (guard) -> guard.outages().size())
			.description("Connections whose commands fail fast because their server is unreachable")
			.register(registry);
		MaintenanceNotifications maintenance = this.guard.maintenanceNotifications();
		FunctionCounter
			.builder("lettuce.tuning.maintenance.notifications", maintenance, MaintenanceNotifications::received)
			.description("Maintenance notifications (MIGRATING, MIGRATED, FAILING_OVER, FAILED_OVER, MOVING) received")
			.register(registry);
		Gauge
			.builder("lettuce.tuning.maintenance.connections", maintenance,
					MaintenanceNotifications::connectionsInWindow)
			.description("Connections in a maintenance window the server announced and has not yet ended")
			.register(registry);
		FunctionCounter
			.builder("lettuce.tuning.maintenance.relaxed.commands", maintenance,
					MaintenanceNotifications::relaxedCommands)
			.description("Commands written in an announced maintenance window, with Lettuce's relaxed timeout")
			.register(registry);
		FunctionCounter.builder("lettuce.tuning.connections.moved", this.guard, OutageGuard::connectionsMoved)
			.description("Reconnects that landed on another server address than the connection had before")
			.register(registry);
		EventLoopWatchdog watchdog = this.guard.watchdog();
		if (watchdog != null) {
			bindTo(registry, watchdog);
		}
	}

	private static void bindTo(MeterRegistry registry, EventLoopWatchdog watchdog) {
		FunctionCounter.builder("lettuce.tuning.event.loop.blocked", watchdog, EventLoopWatchdog::blockedSpells)
			.description("Times an event loop of the client was found blocked while commands waited")
			.register(registry);
		Gauge.builder("lettuce.tuning.event.loops.blocked", watchdog, (dog) -> dog.blockedNow().size())
			.description("Event loops of the client blocked now while commands wait")
			.register(registry);
		FunctionCounter.builder("lettuce.tuning.process.pauses", watchdog, EventLoopWatchdog::pauses)
			.description("Times the whole process was found paused while commands waited")
			.register(registry);
	}

}
