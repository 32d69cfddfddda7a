package io.github.lettucetuning.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.lettucetuning.testsupport.server.RedisNode;

/**
 * How many reads the near caches served from memory: Redis's {@code GET} count (a miss
 * runs {@code GET} inside the near cache's script, a bypass sends it, and Redis counts
 * both in {@code INFO commandstats}) against the reads the applications made, in the
 * windows without a fault. Nothing else in the checker's traffic sends {@code GET}.
 * <p>
 * Sampled from every data node every {@value #PERIOD_MILLIS} ms; a node restarted without
 * persistence starts its count again from zero, which the sum allows for.
 */
final class NearCacheHits implements AutoCloseable {

	private static final long PERIOD_MILLIS = 250;

	private static final Duration READ_TIMEOUT = Duration.ofMillis(500);

	// After a heal: time for tracking to be re-established and the memory to fill again
	private static final Duration SETTLE = Duration.ofSeconds(1);

	private static final String GET_CALLS = "cmdstat_get:calls=";

	private final List<RedisNode> nodes;

	private final List<Sample> samples = new CopyOnWriteArrayList<>();

	private final Thread thread;

	private volatile boolean closed;

	private NearCacheHits(List<RedisNode> nodes) {
		this.nodes = List.copyOf(nodes);
		this.thread = new Thread(this::sample, "nc-hits-sampler");
		this.thread.setDaemon(true);
	}

	static NearCacheHits start(List<RedisNode> nodes) {
		NearCacheHits hits = new NearCacheHits(nodes);
		hits.thread.start();
		return hits;
	}

	private void sample() {
		while (!this.closed) {
			long[] gets = new long[this.nodes.size()];
			for (int i = 0; i < gets.length; i++) {
				gets[i] = gets(this.nodes.get(i));
			}
			this.samples.add(new Sample(System.nanoTime(), gets));
			Traffic.sleep(PERIOD_MILLIS);
		}
	}

	// -1 when the node does not answer (down, paused, blackholed)
	private static long gets(RedisNode node) {
		try {
			Object reply = node.command(READ_TIMEOUT, "INFO", "commandstats");
			String text = (reply != null) ? reply.toString() : "";
			int at = text.indexOf(GET_CALLS);
			if (at < 0) {
				return 0;
			}
			int from = at + GET_CALLS.length();
			int to = from;
			while (to < text.length() && Character.isDigit(text.charAt(to))) {
				to++;
			}
			return Long.parseLong(text.substring(from, to));
		}
		catch (RuntimeException ex) {
			return -1;
		}
	}

	/**
	 * Count, in the windows without a fault, the reads the applications made and those
	 * that reached Redis.
	 * @param reads the reads
	 * @param disruptions the faults
	 * @param fromNanos when the traffic started
	 * @param toNanos when it stopped
	 * @return the counts
	 */
	Share share(List<NearCacheCheck.Read> reads, List<NearCacheCheck.Disruption> disruptions, long fromNanos,
			long toNanos) {
		List<long[]> quiet = quietWindows(disruptions, fromNanos, toNanos);
		long appReads = 0;
		long redisReads = 0;
		long quietNanos = 0;
		for (long[] window : quiet) {
			List<Sample> inside = this.samples.stream()
				.filter((sample) -> sample.nanos() - window[0] >= 0 && sample.nanos() - window[1] <= 0)
				.toList();
			if (inside.size() < 2) {
				continue;
			}
			long first = inside.get(0).nanos();
			long last = inside.get(inside.size() - 1).nanos();
			quietNanos += last - first;
			redisReads += gets(inside);
			appReads += reads.stream()
				.filter((read) -> read.startNanos() - first >= 0 && read.startNanos() - last < 0)
				.count();
		}
		return new Share(appReads, redisReads, Duration.ofNanos(quietNanos));
	}

	// The GETs between consecutive samples of each node; a count that went down is a
	// restarted node's, counted from zero
	private long gets(List<Sample> samples) {
		long total = 0;
		for (int node = 0; node < this.nodes.size(); node++) {
			long previous = -1;
			for (Sample sample : samples) {
				long current = sample.gets()[node];
				if (current < 0) {
					continue;
				}
				if (previous >= 0) {
					total += (current >= previous) ? current - previous : current;
				}
				previous = current;
			}
		}
		return total;
	}

	// From the start to the end, without the spans of the faults and a settling time
	// after each heal
	static List<long[]> quietWindows(List<NearCacheCheck.Disruption> disruptions, long fromNanos, long toNanos) {
		List<NearCacheCheck.Disruption> sorted = new ArrayList<>(disruptions);
		sorted.sort(Comparator.comparingLong(NearCacheCheck.Disruption::startNanos));
		List<long[]> windows = new ArrayList<>();
		long quietFrom = fromNanos;
		for (NearCacheCheck.Disruption disruption : sorted) {
			if (disruption.startNanos() - quietFrom > 0) {
				windows.add(new long[] { quietFrom, Math.min(disruption.startNanos(), toNanos) });
			}
			long settled = disruption.endNanos() + SETTLE.toNanos();
			if (settled - quietFrom > 0) {
				quietFrom = settled;
			}
		}
		if (toNanos - quietFrom > 0) {
			windows.add(new long[] { quietFrom, toNanos });
		}
		return windows;
	}

	@Override
	public void close() throws InterruptedException {
		this.closed = true;
		this.thread.join(Duration.ofSeconds(10).toMillis());
	}

	private record Sample(long nanos, long[] gets) {

	}

	/**
	 * Reads in the windows without a fault.
	 *
	 * @param appReads the reads the applications made
	 * @param redisReads those that reached Redis
	 * @param quiet how long the windows were, in all
	 */
	record Share(long appReads, long redisReads, Duration quiet) {

		/**
		 * Return the share of reads served from memory.
		 * @return between 0 and 1
		 */
		double hits() {
			return (this.appReads == 0) ? 0 : Math.max(0, 1 - (double) this.redisReads / this.appReads);
		}

	}

}
