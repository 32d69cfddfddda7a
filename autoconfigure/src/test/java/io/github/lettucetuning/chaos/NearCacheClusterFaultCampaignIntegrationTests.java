package io.github.lettucetuning.chaos;

import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The near-cache checker against a cluster of three masters and three replicas, through
 * the cluster campaign's CI schedule: one tracking connection per master, failovers and
 * slots that move.
 *
 * @see NearCacheCampaign
 */
@RedisClusterTest
@Timeout(600)
class NearCacheClusterFaultCampaignIntegrationTests {

	// The cluster campaign's CI seed: two coordinated failovers, a reshard during a
	// blackhole, three kills (one past the node timeout), a replica falling behind
	private static final long CI_SEED = 25;

	private final RedisClusterTopology cluster;

	NearCacheClusterFaultCampaignIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	void noStaleReadBeyondTheBoundUnderOverlappingFaults() throws Exception {
		NearCacheCampaign.underFaults(ChaosServers.cluster(this.cluster), CI_SEED, getClass());
	}

}
