package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * The faults of one campaign, drawn from a seed: the same seed, length and kinds give the
 * same faults at the same offsets, so a failing run is replayed from the seed it prints.
 * About a third of the faults start while the previous one is still under way, so the
 * client meets a second fault while it recovers from the first.
 *
 * @param seed the seed the faults were drawn from
 * @param length the span within which every fault starts and ends
 * @param kinds the kinds drawn from
 * @param faults the faults, by offset
 */
public record FaultSchedule(long seed, Duration length, Set<FaultKind> kinds, List<ScheduledFault> faults) {

	/**
	 * Time without faults at the start, for the workers to warm up.
	 */
	public static final Duration WARM_UP = Duration.ofSeconds(2);

	private static final double OVERLAP_CHANCE = 0.35;

	private static final long MIN_GAP_MILLIS = 500;

	private static final long MAX_GAP_MILLIS = 4000;

	/**
	 * Create a schedule.
	 * @param seed the seed the faults were drawn from
	 * @param length the span within which every fault starts and ends
	 * @param kinds the kinds drawn from
	 * @param faults the faults, by offset
	 */
	public FaultSchedule {
		kinds = Set.copyOf(kinds);
		faults = List.copyOf(faults);
	}

	/**
	 * Draw a schedule.
	 * @param seed the seed
	 * @param length the span within which every fault starts and ends
	 * @param kinds the kinds to draw from
	 * @return the schedule
	 */
	public static FaultSchedule draw(long seed, Duration length, Set<FaultKind> kinds) {
		if (kinds.isEmpty()) {
			throw new IllegalArgumentException("No fault kinds to draw from");
		}
		// Enum order, not the set's iteration order, so the draw depends on the seed only
		List<FaultKind> choices = new ArrayList<>(EnumSet.copyOf(kinds));
		SplittableRandom random = new SplittableRandom(seed);
		List<ScheduledFault> faults = new ArrayList<>();
		long end = length.toMillis();
		long offset = WARM_UP.toMillis();
		while (true) {
			FaultKind kind = choices.get(random.nextInt(choices.size()));
			long duration = duration(kind, random);
			int target = random.nextInt(1 << 16);
			if (offset + duration > end) {
				break;
			}
			faults.add(new ScheduledFault(faults.size(), kind, Duration.ofMillis(offset), Duration.ofMillis(duration),
					target));
			if (random.nextDouble() < OVERLAP_CHANCE) {
				// The next one hits while this one is under way, or right after it heals
				offset += random.nextLong(Math.max(duration, 300) + 1);
			}
			else {
				offset += duration + random.nextLong(MIN_GAP_MILLIS, MAX_GAP_MILLIS + 1);
			}
		}
		return new FaultSchedule(seed, length, kinds, faults);
	}

	// How long each kind lasts: within the outage guard's grace (1 s) and stall timeout
	// (2 s) some of the time, past them, and past a caller's bound (5 s), at other times.
	// Instant faults (client kills, failovers, a reshard) last until they are done.
	private static long duration(FaultKind kind, SplittableRandom random) {
		return switch (kind) {
			case STOP_RESTART, KILL -> random.nextLong(200, 6001);
			case PAUSE, BLACKHOLE -> random.nextLong(300, 8001);
			case DEBUG_SLEEP -> random.nextLong(300, 7001);
			case REPLICA_LAG -> random.nextLong(1000, 5001);
			case CLIENT_KILL_TYPE, CLIENT_KILL_ADDR, CLUSTER_FAILOVER, RESHARD, SENTINEL_FAILOVER -> 0;
		};
	}

	/**
	 * Return when the last fault ends.
	 * @return the latest end of any fault, or zero if there is none
	 */
	public Duration lastEnd() {
		return this.faults.stream().map(ScheduledFault::end).max(Duration::compareTo).orElse(Duration.ZERO);
	}

	/**
	 * Return how many faults start while an earlier one is still under way.
	 * @return the number of overlapping faults
	 */
	public long overlapping() {
		long overlapping = 0;
		Duration latestEnd = Duration.ofMillis(-1);
		for (ScheduledFault fault : this.faults) {
			if (fault.offset().compareTo(latestEnd) < 0) {
				overlapping++;
			}
			latestEnd = (fault.end().compareTo(latestEnd) > 0) ? fault.end() : latestEnd;
		}
		return overlapping;
	}

	/**
	 * Return the schedule as text: the seed to replay it with, then one line per fault.
	 * @return the description
	 */
	public String describe() {
		String kinds = EnumSet.copyOf(this.kinds).stream().map(FaultKind::name).collect(Collectors.joining(","));
		StringBuilder text = new StringBuilder();
		text.append("seed=")
			.append(this.seed)
			.append(" length=")
			.append(this.length.toMillis())
			.append("ms kinds=")
			.append(kinds)
			.append(" faults=")
			.append(this.faults.size())
			.append(" overlapping=")
			.append(overlapping())
			.append('\n');
		for (ScheduledFault fault : this.faults) {
			text.append("  ").append(fault).append('\n');
		}
		return text.toString();
	}

}
