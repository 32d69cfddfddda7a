package io.github.lettucetuning.testsupport.topology;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link ClusterNodeInfo} and {@link SlotRange}.
 */
class ClusterNodeInfoTests {

	private static final String CLUSTER_NODES = """
			07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004,hostname4 slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected
			67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922
			292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master,fail - 0 1426238318243 3 disconnected
			e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-5460 10923 [5461->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]
			""";

	@Test
	void parsesEveryLine() {
		List<ClusterNodeInfo> nodes = ClusterNodeInfo.parseAll(CLUSTER_NODES);
		assertThat(nodes).extracting(ClusterNodeInfo::port).containsExactly(30004, 30002, 30003, 30001);
	}

	@Test
	void parsesAReplica() {
		ClusterNodeInfo replica = ClusterNodeInfo.parseAll(CLUSTER_NODES).get(0);
		assertThat(replica.host()).isEqualTo("127.0.0.1");
		assertThat(replica.isReplica()).isTrue();
		assertThat(replica.isMaster()).isFalse();
		assertThat(replica.masterId()).isEqualTo("e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca");
		assertThat(replica.slots()).isEmpty();
	}

	@Test
	void parsesSlotsAndIgnoresMigrationMarkers() {
		ClusterNodeInfo myself = ClusterNodeInfo.parseAll(CLUSTER_NODES).get(3);
		assertThat(myself.isMyself()).isTrue();
		assertThat(myself.masterId()).isNull();
		assertThat(myself.slots()).containsExactly(new SlotRange(0, 5460), new SlotRange(10923, 10923));
		assertThat(myself.slotCount()).isEqualTo(5462);
		assertThat(myself.ownsSlot(10923)).isTrue();
		assertThat(myself.ownsSlot(5461)).isFalse();
	}

	@Test
	void recognisesFailingNodes() {
		ClusterNodeInfo failing = ClusterNodeInfo.parseAll(CLUSTER_NODES).get(2);
		assertThat(failing.isFailing()).isTrue();
		assertThat(failing.linkState()).isEqualTo("disconnected");
		assertThat(ClusterNodeInfo.parseAll(CLUSTER_NODES).get(1).isFailing()).isFalse();
	}

	@Test
	void rejectsGarbage() {
		assertThatIllegalArgumentException().isThrownBy(() -> ClusterNodeInfo.parse("not a cluster line"));
		assertThatIllegalArgumentException().isThrownBy(() -> SlotRange.parse("16384"));
		assertThatIllegalArgumentException().isThrownBy(() -> new SlotRange(10, 5));
	}

	@Test
	void slotRangeRoundTrips() {
		assertThat(SlotRange.parse("0-5460")).hasToString("0-5460").extracting(SlotRange::size).isEqualTo(5461);
		assertThat(SlotRange.parse("42")).hasToString("42").extracting(SlotRange::size).isEqualTo(1);
	}

}
