package io.github.lettucetuning.resilience;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;

/**
 * What an application saw during one outage: every command and every health request, each
 * with when it started and how long it took, in milliseconds from the start of the load.
 * Written as CSV for the docs' timeline chart.
 */
final class OutageTimeline {

	private final long startNanos = System.nanoTime();

	private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();

	volatile long outageStartMs = -1;

	volatile long outageEndMs = -1;

	long nowMs() {
		return now() / 1_000_000;
	}

	// Nanoseconds from the start of the load: events keep them to order what happened
	// within one millisecond.
	long now() {
		return System.nanoTime() - this.startNanos;
	}

	void record(Kind kind, long startNanos, Outcome outcome, String detail) {
		this.events.add(new Event(kind, startNanos, now(), outcome, detail));
	}

	List<Event> events(Kind kind, Predicate<Event> filter) {
		List<Event> selected = new ArrayList<>();
		for (Event event : this.events) {
			if (event.kind == kind && filter.test(event)) {
				selected.add(event);
			}
		}
		selected.sort((a, b) -> Long.compare(a.startNanos, b.startNanos));
		return selected;
	}

	/**
	 * When the first health request that started after the outage began and answered DOWN
	 * ended, from the start of the outage; -1 if none did during the outage.
	 */
	long healthDownAfterMs() {
		return events(Kind.HEALTH,
				(e) -> e.startMs() >= this.outageStartMs && e.outcome == Outcome.DOWN && e.endMs() <= this.outageEndMs)
			.stream()
			.mapToLong((e) -> e.endMs() - this.outageStartMs)
			.min()
			.orElse(-1);
	}

	long longestHealthRequestMs() {
		return events(Kind.HEALTH, (e) -> true).stream().mapToLong(Event::durationMs).max().orElse(0);
	}

	/**
	 * The longest command among those in flight at some moment of the outage: started
	 * before it ended, ended after it started.
	 */
	long longestCommandDuringOutageMs() {
		return events(Kind.COMMAND, (e) -> e.startMs() < this.outageEndMs && e.endMs() > this.outageStartMs).stream()
			.mapToLong(Event::durationMs)
			.max()
			.orElse(-1);
	}

	/**
	 * The longest command among those started at least {@code afterMs} into the outage
	 * and before it ended.
	 */
	long longestCommandStartedDuringOutageMs(long afterMs) {
		return events(Kind.COMMAND,
				(e) -> e.startMs() >= this.outageStartMs + afterMs && e.startMs() < this.outageEndMs)
			.stream()
			.mapToLong(Event::durationMs)
			.max()
			.orElse(-1);
	}

	/**
	 * When the first command that started after the outage ended succeeded, from the end
	 * of the outage; -1 if none did.
	 */
	long firstSuccessAfterOutageMs() {
		return events(Kind.COMMAND, (e) -> e.startMs() >= this.outageEndMs && e.outcome == Outcome.OK).stream()
			.mapToLong((e) -> e.endMs() - this.outageEndMs)
			.min()
			.orElse(-1);
	}

	/**
	 * The commands that failed although they started after the first command started
	 * after the outage had succeeded. Compared in nanoseconds: a command that started in
	 * the millisecond the first success ended may have started before it did.
	 */
	List<Event> failuresAfterRecovery() {
		long recoveredNanos = events(Kind.COMMAND, (e) -> e.startMs() >= this.outageEndMs && e.outcome == Outcome.OK)
			.stream()
			.mapToLong(Event::endNanos)
			.min()
			.orElse(Long.MAX_VALUE);
		return events(Kind.COMMAND, (e) -> e.startNanos > recoveredNanos && e.outcome != Outcome.OK);
	}

	long mismatches() {
		return events(Kind.COMMAND, (e) -> e.outcome == Outcome.MISMATCH).size();
	}

	long healthUpAgainAfterMs() {
		return events(Kind.HEALTH, (e) -> e.startMs() >= this.outageEndMs && e.outcome == Outcome.UP).stream()
			.mapToLong((e) -> e.endMs() - this.outageEndMs)
			.min()
			.orElse(-1);
	}

	String summary() {
		return String.format(Locale.ROOT,
				"health DOWN after %d ms, longest health request %d ms, longest command started >= 3 s into the outage "
						+ "%d ms, first success %d ms after Redis returned, health UP %d ms after, %d failures after "
						+ "recovery, %d mismatches, %d commands",
				healthDownAfterMs(), longestHealthRequestMs(), longestCommandStartedDuringOutageMs(3000),
				firstSuccessAfterOutageMs(), healthUpAgainAfterMs(), failuresAfterRecovery().size(), mismatches(),
				events(Kind.COMMAND, (e) -> true).size());
	}

	void writeCsv(Path file) throws IOException {
		Files.createDirectories(file.getParent());
		StringBuilder csv = new StringBuilder("kind,start_ms,duration_ms,outcome,outage_start_ms,outage_end_ms\n");
		for (Kind kind : Kind.values()) {
			for (Event event : events(kind, (e) -> true)) {
				csv.append(kind.name().toLowerCase(Locale.ROOT))
					.append(',')
					.append(event.startMs())
					.append(',')
					.append(event.durationMs())
					.append(',')
					.append(event.outcome.name().toLowerCase(Locale.ROOT))
					.append(',')
					.append(this.outageStartMs)
					.append(',')
					.append(this.outageEndMs)
					.append('\n');
			}
		}
		Files.writeString(file, csv);
	}

	enum Kind {

		COMMAND, HEALTH

	}

	enum Outcome {

		OK, FAILED, MISMATCH, UP, DOWN, NO_ANSWER

	}

	record Event(Kind kind, long startNanos, long endNanos, Outcome outcome, String detail) {

		long startMs() {
			return this.startNanos / 1_000_000;
		}

		long endMs() {
			return this.endNanos / 1_000_000;
		}

		long durationMs() {
			return endMs() - startMs();
		}

	}

}
