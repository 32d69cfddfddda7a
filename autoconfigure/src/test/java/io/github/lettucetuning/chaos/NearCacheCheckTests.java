package io.github.lettucetuning.chaos;

import java.time.Duration;
import java.util.List;

import io.github.lettucetuning.chaos.NearCacheCheck.Disruption;
import io.github.lettucetuning.chaos.NearCacheCheck.Read;
import io.github.lettucetuning.chaos.NearCacheCheck.Verdict;
import io.github.lettucetuning.chaos.NearCacheCheck.Write;
import io.github.lettucetuning.chaos.NearCacheCheck.WriteKind;
import io.github.lettucetuning.testsupport.chaos.Invariants;
import io.github.lettucetuning.testsupport.chaos.Values;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near-cache checker's rule on hand-made histories (times in ms).
 */
class NearCacheCheckTests {

	private static final String KEY = "nc::s1.0";

	private final NearCacheCheck check = new NearCacheCheck();

	@Test
	void readOfTheNewestAcknowledgedVersionIsFresh() {
		put(1, 0, 1);
		put(2, 100, 101);
		read(3000, "2");
		Verdict verdict = check();
		assertThat(verdict.holds()).isTrue();
		assertThat(verdict.lags).isEmpty();
		assertThat(verdict.ok).isOne();
	}

	@Test
	void olderVersionReadWithinTheBoundIsLateButNotStale() {
		put(1, 0, 1);
		put(2, 100, 101);
		read(101 + 999, "1");
		Verdict verdict = check();
		assertThat(verdict.holds()).isTrue();
		assertThat(verdict.worstStaleness()).isEqualTo(Duration.ofMillis(999));
	}

	@Test
	void olderVersionReadPastTheBoundIsStale() {
		put(1, 0, 1);
		put(2, 100, 101);
		put(3, 200, 201);
		read(101 + 1001, "1");
		Verdict verdict = check();
		assertThat(verdict.holds()).isFalse();
		assertThat(verdict.stale).singleElement()
			.satisfies((finding) -> assertThat(finding.successor().version()).isEqualTo(2));
		assertThat(verdict.describe()).contains("stale: a read nc::s1.0 at 1102..1103 ms: version 1")
			.contains("version 2 (PUT by test) issued at 100 ms, acknowledged at 101 ms, lag 1001.000 ms");
	}

	@Test
	void readThatStartedBeforeTheAcknowledgementIsFresh() {
		put(1, 0, 1);
		put(2, 100, 5000);
		read(4000, "1");
		assertThat(check().lags).isEmpty();
	}

	@Test
	void unacknowledgedWriteSupersedesNothing() {
		put(1, 0, 1);
		this.check.write(new Write(KEY, 2, WriteKind.PUT, "test", nanos(100), -1));
		read(5000, "1");
		assertThat(check().holds()).isTrue();
	}

	@Test
	void noValueIsTheStateOfTheNewestDeleteIssuedBeforeTheReadEnded() {
		put(1, 0, 1);
		delete(2, 100, 101);
		put(3, 200, 201);
		read(5000, null);
		Verdict stale = check();
		assertThat(stale.stale).singleElement()
			.satisfies((finding) -> assertThat(finding.returnedVersion()).isEqualTo(2));
		NearCacheCheck fresh = new NearCacheCheck();
		fresh.write(new Write(KEY, 1, WriteKind.PUT, "test", nanos(0), nanos(1)));
		fresh.write(new Write(KEY, 2, WriteKind.DELETE, "test", nanos(100), nanos(101)));
		fresh.read(new Read("a", KEY, nanos(5000), nanos(5001), null, null));
		assertThat(fresh.check(List.of(), Invariants.Replication.NONE, 0).holds()).isTrue();
	}

	@Test
	void noValueAfterARestartThatWipedTheWriteIsExcused() {
		put(1, 0, 1);
		read(5000, null);
		Verdict verdict = this.check.check(
				List.of(new Disruption("#1 KILL: killed 1 (master)", nanos(2000), nanos(3000), true)),
				Invariants.Replication.NONE, 0);
		assertThat(verdict.holds()).isTrue();
		assertThat(verdict.excused).hasSize(1);
		assertThat(verdict.lags).isEmpty();
	}

	@Test
	void valueAfterARestartIsNotExcused() {
		put(1, 0, 1);
		put(2, 100, 101);
		read(5000, "1");
		Verdict verdict = this.check.check(
				List.of(new Disruption("#1 KILL: killed 1 (master)", nanos(2000), nanos(3000), true)),
				Invariants.Replication.NONE, 0);
		assertThat(verdict.stale).hasSize(1);
		assertThat(verdict.describe()).contains("faults: #1 KILL");
	}

	@Test
	void olderValueAfterAFailoverBeforeTheReplicasHeldTheWriteIsExcused() {
		put(1, 0, 1);
		put(2, 100, 101);
		read(5000, "1");
		Verdict verdict = this.check.check(List.of(), new Failover(nanos(200), null), 0);
		assertThat(verdict.holds()).isTrue();
		assertThat(verdict.excused).hasSize(1);
		Verdict replicated = this.check.check(List.of(), new Failover(nanos(200), nanos(150)), 0);
		assertThat(replicated.stale).hasSize(1);
	}

	@Test
	void valueOfAnotherKeyOrOfAVersionNotYetIssuedIsAPhantom() {
		put(1, 0, 1);
		put(2, 3000, 3001);
		this.check.read(new Read("a", KEY, nanos(100), nanos(101), Values.encode("nc::other", 1), null));
		read(200, "2");
		read(300, "7");
		Verdict verdict = check();
		assertThat(verdict.phantoms).hasSize(3);
		assertThat(verdict.holds()).isFalse();
	}

	@Test
	void failedReadsAreCountedByCause() {
		this.check.read(new Read("a", KEY, nanos(1), nanos(2), null, "RedisUnreachableException"));
		this.check.read(new Read("b", KEY, nanos(1), nanos(2), null, "RedisUnreachableException"));
		Verdict verdict = check();
		assertThat(verdict.failedReads()).isEqualTo(2);
		assertThat(verdict.ok).isZero();
	}

	@Test
	void quietWindowsLeaveOutFaultsAndTheirSettling() {
		List<long[]> windows = NearCacheHits.quietWindows(List.of(new Disruption("a", nanos(1000), nanos(2000), false),
				new Disruption("b", nanos(1500), nanos(2500), false),
				new Disruption("c", nanos(3000), nanos(3000), false)), 0, nanos(10_000));
		assertThat(windows).hasSize(2);
		assertThat(windows.get(0)).containsExactly(0, nanos(1000));
		assertThat(windows.get(1)).containsExactly(nanos(4000), nanos(10_000));
	}

	private Verdict check() {
		return this.check.check(List.of(), Invariants.Replication.NONE, 0);
	}

	private void put(long version, long issued, long ack) {
		this.check.write(new Write(KEY, version, WriteKind.PUT, "test", nanos(issued), nanos(ack)));
	}

	private void delete(long version, long issued, long ack) {
		this.check.write(new Write(KEY, version, WriteKind.DELETE, "test", nanos(issued), nanos(ack)));
	}

	private void read(long start, @Nullable String version) {
		String value = (version != null) ? Values.encode(KEY, Long.parseLong(version)) : null;
		this.check.read(new Read("a", KEY, nanos(start), nanos(start + 1), value, null));
	}

	private static long nanos(long millis) {
		return millis * 1_000_000;
	}

	private record Failover(long at, @Nullable Long confirmed) implements Invariants.Replication {

		@Override
		public @Nullable Long confirmedAt(long acknowledgedNanos) {
			return this.confirmed;
		}

		@Override
		public List<Long> roleChanges() {
			return List.of(this.at);
		}

	}

}
