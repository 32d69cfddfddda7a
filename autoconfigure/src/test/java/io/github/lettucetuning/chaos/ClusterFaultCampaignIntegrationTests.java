package io.github.lettucetuning.chaos;

import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fault campaign against a cluster of three masters and three replicas: the faults of
 * a single server on any node, plus {@code CLUSTER FAILOVER}, resharding and a replica
 * that falls behind, overlapping.
 *
 * @see FaultCampaign
 */
@RedisClusterTest
@Timeout(7200)
class ClusterFaultCampaignIntegrationTests {

	// Draws, in 30 s, seven kinds: two coordinated failovers, a reshard during a
	// blackhole, three kills (one past the node timeout), a replica falling behind
	private static final long CI_SEED = 25;

	private final RedisClusterTopology cluster;

	ClusterFaultCampaignIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	void theStarterHoldsTheInvariantsUnderOverlappingFaults() throws Exception {
		FaultCampaign.run(ChaosServers.cluster(this.cluster), CI_SEED);
	}

}
