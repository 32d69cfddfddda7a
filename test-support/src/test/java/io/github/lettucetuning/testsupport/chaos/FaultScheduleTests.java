package io.github.lettucetuning.testsupport.chaos;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.github.lettucetuning.testsupport.topology.TopologyKind;

/**
 * Tests for {@link FaultSchedule}.
 */
class FaultScheduleTests {

	private static final Set<FaultKind> STANDALONE = FaultKind.forTopology(TopologyKind.STANDALONE);

	@Test
	void theSameSeedReplaysTheSameFaultsAtTheSameOffsets() {
		FaultSchedule first = FaultSchedule.draw(42, Duration.ofMinutes(5), STANDALONE);
		FaultSchedule replay = FaultSchedule.draw(42, Duration.ofMinutes(5), EnumSet.copyOf(STANDALONE));
		assertThat(replay).isEqualTo(first);
		assertThat(replay.describe()).isEqualTo(first.describe());
		assertThat(first.faults()).hasSizeGreaterThan(20);
	}

	@Test
	void anotherSeedDrawsOtherFaults() {
		assertThat(FaultSchedule.draw(43, Duration.ofMinutes(5), STANDALONE).faults())
			.isNotEqualTo(FaultSchedule.draw(42, Duration.ofMinutes(5), STANDALONE).faults());
	}

	@Test
	void faultsStartAfterTheWarmUpInOrderAndEndWithinTheLength() {
		Duration length = Duration.ofSeconds(60);
		FaultSchedule schedule = FaultSchedule.draw(7, length, STANDALONE);
		assertThat(schedule.faults()).isNotEmpty().allSatisfy((fault) -> {
			assertThat(fault.offset()).isGreaterThanOrEqualTo(FaultSchedule.WARM_UP);
			assertThat(fault.end()).isLessThanOrEqualTo(length);
			assertThat(fault.kind().appliesTo(TopologyKind.STANDALONE)).isTrue();
		});
		assertThat(schedule.faults()).extracting(ScheduledFault::offset).isSorted();
		assertThat(schedule.faults()).extracting(ScheduledFault::index)
			.containsExactlyElementsOf(java.util.stream.IntStream.range(0, schedule.faults().size()).boxed().toList());
		assertThat(schedule.lastEnd()).isLessThanOrEqualTo(length);
	}

	@Test
	void someFaultsStartWhileAnotherIsUnderWay() {
		FaultSchedule schedule = FaultSchedule.draw(1, Duration.ofMinutes(10), STANDALONE);
		assertThat(schedule.overlapping()).isPositive().isLessThan(schedule.faults().size());
	}

	@Test
	void describePrintsTheSeedAndOneLinePerFault() {
		FaultSchedule schedule = FaultSchedule.draw(99, Duration.ofSeconds(30), Set.of(FaultKind.PAUSE));
		assertThat(schedule.describe()).startsWith("seed=99 length=30000ms kinds=PAUSE faults=")
			.contains("#0 PAUSE")
			.hasLineCount(schedule.faults().size() + 1);
	}

	@Test
	void sentinelAndClusterKindsBelongToTheirTopologies() {
		assertThat(FaultKind.forTopology(TopologyKind.STANDALONE)).doesNotContain(FaultKind.CLUSTER_FAILOVER,
				FaultKind.RESHARD, FaultKind.SENTINEL_FAILOVER, FaultKind.REPLICA_LAG);
		assertThat(FaultKind.forTopology(TopologyKind.CLUSTER)).contains(FaultKind.CLUSTER_FAILOVER, FaultKind.RESHARD,
				FaultKind.REPLICA_LAG, FaultKind.KILL);
		assertThat(FaultKind.forTopology(TopologyKind.SENTINEL)).contains(FaultKind.SENTINEL_FAILOVER)
			.doesNotContain(FaultKind.RESHARD);
	}

	@Test
	void drawingFromNoKindsIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> FaultSchedule.draw(1, Duration.ofSeconds(30), Set.of()));
	}

}
