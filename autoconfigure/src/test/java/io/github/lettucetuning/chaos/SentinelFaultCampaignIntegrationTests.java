package io.github.lettucetuning.chaos;

import io.github.lettucetuning.testsupport.RedisSentinelTest;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fault campaign against a master and a replica behind Sentinels: the faults of a
 * single server on either data node, plus {@code SENTINEL FAILOVER} and a replica that
 * falls behind, overlapping.
 *
 * @see FaultCampaign
 */
@RedisSentinelTest
@Timeout(7200)
class SentinelFaultCampaignIntegrationTests {

	// Draws, in 30 s, seven kinds: a failover right after a replica fell behind, the
	// master killed twice for longer than Sentinel's down-after, a blackhole
	private static final long CI_SEED = 40;

	private final RedisSentinelTopology sentinel;

	SentinelFaultCampaignIntegrationTests(RedisSentinelTopology sentinel) {
		this.sentinel = sentinel;
	}

	@Test
	void theStarterHoldsTheInvariantsUnderOverlappingFaults() throws Exception {
		FaultCampaign.run(ChaosServers.sentinel(this.sentinel), CI_SEED);
	}

}
