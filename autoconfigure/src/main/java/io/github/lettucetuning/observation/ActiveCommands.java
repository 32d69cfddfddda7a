package io.github.lettucetuning.observation;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.protocol.ProtocolKeyword;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

/**
 * The commands of one server address in flight, read when a registry is read: the
 * commands in the ring of each of the address' channels that are not done yet, and those
 * a channel handed to a completion callback (older than the handler's check, or left when
 * a channel closed) until they complete. Nothing is counted per command: a command is in
 * flight while it sits in a ring or in the callbacks' set, which the handler keeps
 * anyway.
 * <p>
 * Exported as Spring Boot's {@code lettuce} observation exports its long-task timer,
 * {@code lettuce.active} tagged with the key values the observation has when it starts
 * (Lettuce's low-cardinality ones, without {@code error} and without the common key
 * values, which Boot adds when an observation stops): Micrometer has no long-task timer
 * whose values are computed when read, so this registers the two meters that a long-task
 * timer is written as in Prometheus, a function timer {@code lettuce.active} (active
 * tasks as its count, their summed duration as its total time) and a gauge
 * {@code lettuce.active.seconds.max} (the oldest one's duration in seconds).
 * <p>
 * A ring is read without synchronising with its event loop: a read that races a batch of
 * writes or reads may miss or count once more the commands of that batch, as any scrape
 * races the commands it counts.
 */
final class ActiveCommands {

	static final String NAME = EndpointTimers.TIMER_NAME + ".active";

	private final Set<CommandMetersHandler> handlers = ConcurrentHashMap.newKeySet();

	private final Set<Followed> followed = ConcurrentHashMap.newKeySet();

	void register(MeterRegistry registry, Tags tags, ProtocolKeyword type) {
		Tags active = tags.and("db.operation", type.toString());
		FunctionTimer
			.builder(NAME, this, (commands) -> commands.tally(type).count,
					(commands) -> commands.tally(type).totalNanos, TimeUnit.NANOSECONDS)
			.tags(active)
			.register(registry);
		Gauge.builder(NAME + ".seconds.max", this, (commands) -> commands.tally(type).maxNanos / 1e9)
			.tags(active)
			.register(registry);
	}

	void opened(CommandMetersHandler handler) {
		this.handlers.add(handler);
	}

	void closed(CommandMetersHandler handler) {
		this.handlers.remove(handler);
	}

	void follow(Followed command) {
		this.followed.add(command);
	}

	void unfollow(Followed command) {
		this.followed.remove(command);
	}

	Tally tally(ProtocolKeyword type) {
		Tally tally = new Tally(System.nanoTime());
		for (CommandMetersHandler handler : this.handlers) {
			handler.tally(type, tally);
		}
		for (Followed command : this.followed) {
			if (type.equals(command.type()) && !command.isDone()) {
				tally.add(command.start());
			}
		}
		return tally;
	}

	/**
	 * A command handed to a completion callback.
	 */
	interface Followed {

		ProtocolKeyword type();

		long start();

		boolean isDone();

	}

	/**
	 * The commands of one type in flight: how many, their summed duration and the
	 * longest.
	 */
	static final class Tally {

		private final long now;

		long count;

		long totalNanos;

		long maxNanos;

		Tally(long now) {
			this.now = now;
		}

		void add(long start) {
			long nanos = Math.max(0, this.now - start);
			this.count++;
			this.totalNanos += nanos;
			this.maxNanos = Math.max(this.maxNanos, nanos);
		}

	}

}
