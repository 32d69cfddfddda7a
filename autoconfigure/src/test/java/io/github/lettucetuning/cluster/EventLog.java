package io.github.lettucetuning.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.cluster.AdaptiveRefreshTriggeredEvent;
import io.lettuce.core.event.connection.ConnectionEvent;
import io.lettuce.core.event.connection.DisconnectedEvent;
import io.lettuce.core.resource.ClientResources;
import reactor.core.Disposable;

/**
 * Records Lettuce's event bus during a fault, with times relative to the fault, to
 * explain a measured window.
 */
final class EventLog implements AutoCloseable {

	private final List<String> lines = new ArrayList<>();

	private final List<TimedEvent> events = new ArrayList<>();

	private final Disposable subscription;

	private volatile long origin = System.nanoTime();

	EventLog(ClientResources resources) {
		this.subscription = resources.eventBus().get().subscribe(this::record);
	}

	void markFault(long nanos) {
		this.origin = nanos;
	}

	private synchronized void record(Event event) {
		long now = System.nanoTime();
		this.events.add(new TimedEvent(now, event));
		if (event instanceof ClusterTopologyChangedEvent || event instanceof AdaptiveRefreshTriggeredEvent
				|| event instanceof DisconnectedEvent) {
			this.lines.add(String.format(Locale.ROOT, "%+.2fs %s", (now - this.origin) / 1e9, describe(event)));
		}
	}

	private static String describe(Event event) {
		if (event instanceof ClusterTopologyChangedEvent changed) {
			return "ClusterTopologyChangedEvent " + changed.before().size() + " -> " + changed.after().size()
					+ " nodes";
		}
		if (event instanceof ConnectionEvent connection) {
			return event.getClass().getSimpleName() + " " + connection.remoteAddress();
		}
		return event.getClass().getSimpleName();
	}

	/**
	 * Return when the first event of a kind happened after a time, as
	 * {@link System#nanoTime()}.
	 * @param nanos the earliest time
	 * @param match which events count
	 * @return the time or {@code -1}
	 */
	synchronized long firstTimeAfter(long nanos, Predicate<Event> match) {
		return this.events.stream()
			.filter((timed) -> timed.nanos() >= nanos && match.test(timed.event()))
			.mapToLong(TimedEvent::nanos)
			.findFirst()
			.orElse(-1);
	}

	static Predicate<Event> disconnectedFrom(int port) {
		return (event) -> event instanceof DisconnectedEvent disconnected
				&& disconnected.remoteAddress().toString().endsWith(":" + port);
	}

	synchronized void print(String scenario) {
		this.lines.forEach((line) -> System.out.println("[fault] " + scenario + " event " + line));
	}

	@Override
	public void close() {
		this.subscription.dispose();
	}

	private record TimedEvent(long nanos, Event event) {

	}

}
