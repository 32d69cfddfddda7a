package io.github.lettucetuning.chaos;

import io.github.lettucetuning.testsupport.RedisSentinelTest;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The near-cache checker against a master and a replica behind Sentinels, through the
 * Sentinel campaign's CI schedule.
 *
 * @see NearCacheCampaign
 */
@RedisSentinelTest
@Timeout(600)
class NearCacheSentinelFaultCampaignIntegrationTests {

	// The Sentinel campaign's CI seed: a failover after a replica fell behind, the master
	// killed twice past Sentinel's down-after, a blackhole
	private static final long CI_SEED = 40;

	private final RedisSentinelTopology sentinel;

	NearCacheSentinelFaultCampaignIntegrationTests(RedisSentinelTopology sentinel) {
		this.sentinel = sentinel;
	}

	@Test
	void noStaleReadBeyondTheBoundUnderOverlappingFaults() throws Exception {
		NearCacheCampaign.underFaults(ChaosServers.sentinel(this.sentinel), CI_SEED, getClass());
	}

}
