package io.github.lettucetuning.chaos;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fault campaign against one server: stop and restart, {@code kill -9},
 * {@code SIGSTOP}, client kills, a blackhole and {@code DEBUG SLEEP}, overlapping.
 *
 * @see FaultCampaign
 */
@RedisStandaloneTest
@Timeout(7200)
class StandaloneFaultCampaignIntegrationTests {

	// Draws, in 30 s, six of the kinds a standalone server has, several while an
	// earlier one is under way, and a fault that outlasts a caller's bound; it found
	// the checker's mistake about writes whose connection broke (docs/fault-campaign.md)
	private static final long CI_SEED = 20;

	private final RedisStandalone redis;

	StandaloneFaultCampaignIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void theStarterHoldsTheInvariantsUnderOverlappingFaults() throws Exception {
		FaultCampaign.run(ChaosServers.standalone(this.redis), CI_SEED);
	}

}
