package io.github.lettucetuning.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.github.lettucetuning.testsupport.chaos.Invariants;
import io.github.lettucetuning.testsupport.chaos.Values;
import org.jspecify.annotations.Nullable;

/**
 * The near-cache checker: what the writers wrote and acknowledged, what the readers read
 * through the cache, and the rule that tells a stale read.
 * <p>
 * <b>Versions.</b> Every key has one writer at a time; its writes get versions 1, 2, 3…
 * in the order they are issued, each issued only once the previous one ended. A write is
 * a {@code PUT} (the value {@link Values#encode(String, long) names the key and the
 * version}) or a {@code DELETE}; version 0 is the key before any write (absent).
 * <p>
 * <b>Acknowledged.</b> A write is acknowledged at the moment its writer's synchronous
 * call returned successfully: Redis had run it by then. The writers use only paths that
 * wait for Redis: the application writes through {@code Cache.putIfAbsent} and
 * {@code Cache.evictIfPresent} (Spring Data runs both on a connection and returns Redis's
 * reply; {@code Cache.put} and {@code Cache.evict} are sent asynchronously by default,
 * and their acknowledgement is not observable), the writer outside the applications
 * through a plain Lettuce client's synchronous {@code SET} and {@code DEL}. A write that
 * failed, timed out or whose reply was lost has no acknowledgement, and Redis may still
 * run it later (a command queued across a reconnect): its key is then retired, and the
 * writer goes on with a fresh key, so that no later version can be overtaken by it.
 * <p>
 * <b>Stale.</b> A read returned the state of some version {@code x}: the version its
 * value names, or, for no value, the newest {@code DELETE} (or version 0) issued before
 * the read ended. It is superseded by the first acknowledged version {@code y > x}. Its
 * lag is the time from {@code y}'s acknowledgement to the read's start; a read whose lag
 * exceeds the bound is a <b>stale read</b>, unless Redis itself may have lost {@code y}:
 * a failover after {@code y} was acknowledged and before the replicas were known to hold
 * it, or, for a read of no value, a restart without persistence after the
 * acknowledgement. Those are counted and listed as excused. A value that names another
 * key, a version never written, or a version issued after the read ended is a <b>phantom
 * read</b>. Every read with a positive lag (served after a newer version was
 * acknowledged, within the bound or not) goes into the staleness figures that the bound
 * is tightened from.
 */
final class NearCacheCheck {

	/**
	 * How late after a newer version was acknowledged a read may still return an older
	 * one.
	 */
	static final Duration BOUND = Duration.ofSeconds(1);

	private static final int LISTED = 10;

	private final Queue<Write> writes = new ConcurrentLinkedQueue<>();

	private final Queue<Read> reads = new ConcurrentLinkedQueue<>();

	void write(Write write) {
		this.writes.add(write);
	}

	void read(Read read) {
		this.reads.add(read);
	}

	List<Read> reads() {
		return List.copyOf(this.reads);
	}

	List<Write> writes() {
		return List.copyOf(this.writes);
	}

	/**
	 * Check every read against the writes of its key.
	 * @param disruptions the faults, as spans, for the listing and the excuses
	 * @param replication which acknowledged writes the replicas held, and role changes
	 * @param originNanos the run's start, for the times listed
	 * @return the verdict
	 */
	Verdict check(List<Disruption> disruptions, Invariants.Replication replication, long originNanos) {
		Map<String, List<Write>> byKey = new HashMap<>();
		for (Write write : this.writes) {
			byKey.computeIfAbsent(write.key(), (key) -> new ArrayList<>()).add(write);
		}
		byKey.values().forEach((list) -> list.sort(Comparator.comparingLong(Write::version)));
		Verdict verdict = new Verdict(originNanos, disruptions);
		for (Read read : this.reads) {
			if (read.failure() != null) {
				verdict.failed.merge(read.failure(), 1, Integer::sum);
				continue;
			}
			verdict.ok++;
			judge(read, byKey.getOrDefault(read.key(), List.of()), disruptions, replication, verdict);
		}
		return verdict;
	}

	private static void judge(Read read, List<Write> writes, List<Disruption> disruptions,
			Invariants.Replication replication, Verdict verdict) {
		long returned;
		if (read.value() != null) {
			Values.Written written = Values.parse(read.value());
			Write write = (written != null && written.key().equals(read.key())) ? version(writes, written.sequence())
					: null;
			if (write == null || write.kind() != WriteKind.PUT || write.issuedNanos() - read.endNanos() > 0) {
				verdict.phantoms
					.add(new Finding(read, null, 0, "phantom: no such version issued before the read ended"));
				return;
			}
			returned = write.version();
		}
		else {
			returned = newestDeleteIssuedBefore(writes, read.endNanos());
		}
		Write successor = firstAcknowledgedAfter(writes, returned);
		if (successor == null) {
			return;
		}
		long lag = read.startNanos() - successor.ackNanos();
		if (lag <= 0) {
			return;
		}
		if (lag > BOUND.toNanos()) {
			String excuse = excuse(read, successor, disruptions, replication);
			if (excuse != null) {
				// Redis's loss, not the near cache's lateness: not in the staleness
				// figures
				verdict.excused.add(new Finding(read, successor, returned, excuse));
				return;
			}
			verdict.stale.add(new Finding(read, successor, returned, null));
		}
		verdict.lags.add(lag);
	}

	private static @Nullable Write version(List<Write> writes, long version) {
		int index = (int) version - 1;
		if (index < 0 || index >= writes.size()) {
			return null;
		}
		Write write = writes.get(index);
		return (write.version() == version) ? write : null;
	}

	private static long newestDeleteIssuedBefore(List<Write> writes, long endNanos) {
		long newest = 0;
		for (Write write : writes) {
			if (write.issuedNanos() - endNanos > 0) {
				break;
			}
			if (write.kind() == WriteKind.DELETE) {
				newest = write.version();
			}
		}
		return newest;
	}

	private static @Nullable Write firstAcknowledgedAfter(List<Write> writes, long version) {
		for (int i = (int) version; i < writes.size(); i++) {
			if (writes.get(i).acknowledged()) {
				return writes.get(i);
			}
		}
		return null;
	}

	// Redis itself may not hold the newer version: a failover before the replicas held
	// it, or (for a read of no value) a restart that wiped it
	private static @Nullable String excuse(Read read, Write successor, List<Disruption> disruptions,
			Invariants.Replication replication) {
		Long confirmed = replication.confirmedAt(successor.ackNanos());
		for (long change : replication.roleChanges()) {
			if (change - successor.ackNanos() > 0 && change - read.endNanos() <= 0
					&& (confirmed == null || confirmed - change > 0)) {
				return "excused: a failover after the acknowledgement, before the replicas held it";
			}
		}
		if (read.value() == null) {
			for (Disruption disruption : disruptions) {
				if (disruption.wipes() && disruption.startNanos() - successor.ackNanos() > 0
						&& disruption.startNanos() - read.endNanos() <= 0) {
					String label = disruption.label();
					return "excused: a restart without persistence after the acknowledgement, "
							+ label.substring(0, Math.max(0, label.indexOf(' ')));
				}
			}
		}
		return null;
	}

	/**
	 * What a write was.
	 */
	enum WriteKind {

		PUT, DELETE

	}

	/**
	 * One write of a key.
	 *
	 * @param key the Redis key
	 * @param version its version, from 1
	 * @param kind put or delete
	 * @param writer who wrote it
	 * @param issuedNanos when the call was made
	 * @param ackNanos when it returned successfully, or {@code -1} when it did not
	 */
	record Write(String key, long version, WriteKind kind, String writer, long issuedNanos, long ackNanos) {

		boolean acknowledged() {
			return this.ackNanos != -1;
		}

	}

	/**
	 * One read through a near cache.
	 *
	 * @param reader which application read it
	 * @param key the Redis key
	 * @param startNanos when the read started
	 * @param endNanos when it returned
	 * @param value the value read, {@code null} for none
	 * @param failure the failure's root cause type, {@code null} if it returned
	 */
	record Read(String reader, String key, long startNanos, long endNanos, @Nullable String value,
			@Nullable String failure) {

	}

	/**
	 * A fault as the checker sees it: a span, and whether it may wipe acknowledged
	 * writes.
	 *
	 * @param label what it was
	 * @param startNanos when it began
	 * @param endNanos when it was healed
	 * @param wipes whether it restarted a master without persistence
	 */
	record Disruption(String label, long startNanos, long endNanos, boolean wipes) {

	}

	/**
	 * A read the rule flagged.
	 *
	 * @param read the read
	 * @param successor the acknowledged write it missed, if any
	 * @param returnedVersion the version it returned
	 * @param note why it was flagged, or excused
	 */
	record Finding(Read read, @Nullable Write successor, long returnedVersion, @Nullable String note) {

	}

	/**
	 * What the check found.
	 */
	static final class Verdict {

		private final long originNanos;

		private final List<Disruption> disruptions;

		final List<Finding> stale = new ArrayList<>();

		final List<Finding> excused = new ArrayList<>();

		final List<Finding> phantoms = new ArrayList<>();

		final List<Long> lags = new ArrayList<>();

		final Map<String, Integer> failed = new TreeMap<>();

		long ok;

		Verdict(long originNanos, List<Disruption> disruptions) {
			this.originNanos = originNanos;
			this.disruptions = List.copyOf(disruptions);
		}

		boolean holds() {
			return this.stale.isEmpty() && this.phantoms.isEmpty();
		}

		int failedReads() {
			return this.failed.values().stream().mapToInt(Integer::intValue).sum();
		}

		/**
		 * Return the longest lag of a read that returned a superseded version, excused
		 * ones left out.
		 * @return the worst staleness, zero if no read was late
		 */
		Duration worstStaleness() {
			return Duration.ofNanos(this.lags.stream().mapToLong(Long::longValue).max().orElse(0));
		}

		Duration lagPercentile(double percentile) {
			if (this.lags.isEmpty()) {
				return Duration.ZERO;
			}
			List<Long> sorted = this.lags.stream().sorted().toList();
			int index = (int) Math.ceil(percentile / 100 * sorted.size()) - 1;
			return Duration.ofNanos(sorted.get(Math.max(0, index)));
		}

		String describe() {
			StringBuilder text = new StringBuilder();
			text.append(String.format(Locale.ROOT,
					"reads %,d ok, %,d failed %s; late (after a newer version was acknowledged) %,d, "
							+ "p99 %.3f ms, worst %.3f ms; stale beyond %d ms: %d; excused (Redis lost the write): %d; "
							+ "phantoms: %d%n",
					this.ok, failedReads(), this.failed, this.lags.size(), lagPercentile(99).toNanos() / 1e6,
					worstStaleness().toNanos() / 1e6, BOUND.toMillis(), this.stale.size(), this.excused.size(),
					this.phantoms.size()));
			list(text, "stale", this.stale);
			list(text, "phantom", this.phantoms);
			list(text, "excused", this.excused.subList(0, Math.min(3, this.excused.size())));
			return text.toString();
		}

		private void list(StringBuilder text, String title, List<Finding> findings) {
			findings.stream()
				.sorted(Comparator.comparingLong((finding) -> finding.read().startNanos()))
				.limit(LISTED)
				.forEach((finding) -> text.append("  ")
					.append(title)
					.append(": ")
					.append(describe(finding))
					.append('\n'));
		}

		String describe(Finding finding) {
			Read read = finding.read();
			StringBuilder text = new StringBuilder();
			text.append(String.format(Locale.ROOT, "%s read %s at %d..%d ms: %s", read.reader(), read.key(),
					millis(read.startNanos()), millis(read.endNanos()),
					(read.value() != null) ? "version " + finding.returnedVersion()
							: "no value (state of version " + finding.returnedVersion() + ")"));
			Write successor = finding.successor();
			if (successor != null) {
				text.append(String.format(Locale.ROOT,
						", version %d (%s by %s) issued at %d ms, acknowledged at %d ms, lag %.3f ms",
						successor.version(), successor.kind(), successor.writer(), millis(successor.issuedNanos()),
						millis(successor.ackNanos()), (read.startNanos() - successor.ackNanos()) / 1e6));
				text.append("; faults: ").append(active(successor.ackNanos(), read.endNanos()));
			}
			if (finding.note() != null) {
				text.append(" (").append(finding.note()).append(')');
			}
			return text.toString();
		}

		// The faults under way at some moment between the write's acknowledgement and
		// the read
		private String active(long fromNanos, long toNanos) {
			List<String> active = new ArrayList<>();
			for (Disruption disruption : this.disruptions) {
				if (disruption.startNanos() - toNanos <= 0 && disruption.endNanos() - fromNanos >= 0) {
					active.add(disruption.label());
				}
			}
			return active.isEmpty() ? "none" : String.join("; ", active);
		}

		private long millis(long nanos) {
			return (nanos - this.originNanos) / 1_000_000;
		}

	}

}
