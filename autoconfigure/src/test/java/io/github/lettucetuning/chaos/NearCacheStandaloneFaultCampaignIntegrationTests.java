package io.github.lettucetuning.chaos;

import java.time.Duration;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The near-cache checker against one server: through the standalone campaign's CI
 * schedule, and through repeated kills of the tracking connections with nothing else
 * going wrong.
 *
 * @see NearCacheCampaign
 */
@RedisStandaloneTest
@Timeout(600)
class NearCacheStandaloneFaultCampaignIntegrationTests {

	// The standalone campaign's CI seed: restarts, kills, a pause, client kills, a
	// blackhole and DEBUG SLEEP, overlapping
	private static final long CI_SEED = 20;

	private static final long KILL_SEED = 40;

	private final RedisStandalone redis;

	NearCacheStandaloneFaultCampaignIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void noStaleReadBeyondTheBoundUnderOverlappingFaults() throws Exception {
		NearCacheCampaign.underFaults(ChaosServers.standalone(this.redis), CI_SEED, getClass());
	}

	@Test
	void noStaleReadBeyondTheBoundWhileTheTrackingConnectionIsKilled() throws Exception {
		NearCacheCampaign.trackingKills(ChaosServers.standalone(this.redis), KILL_SEED, Duration.ofSeconds(12),
				getClass());
	}

}
