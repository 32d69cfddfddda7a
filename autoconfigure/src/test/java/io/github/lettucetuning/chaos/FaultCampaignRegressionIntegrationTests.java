package io.github.lettucetuning.chaos;

import java.time.Duration;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The moments of long campaign runs that found a bug in the starter, each replayed from
 * its seed: the faults of that window only, with every set-up running through them.
 * {@code make chaos} does not select this class; {@code make test} runs it.
 *
 * @see FaultCampaign#replay
 */
@RedisStandaloneTest
@Timeout(600)
class FaultCampaignRegressionIntegrationTests {

	private final RedisStandalone redis;

	FaultCampaignRegressionIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	// Seed 1126, 150 to 171 s: a client kill, a blackhole (#33), a kill -9 under it and a
	// second blackhole (#35). A BLPOP in flight when #33 began was given up at the
	// command
	// timeout (8 s); the pool handed its connection to a transaction, which waited behind
	// the abandoned pop until the next reconnect, 5.7 to 8 s. AbandonedBlockingCommand-
	// IntegrationTests pins the cause.
	@Test
	void aTransactionBehindAPopAbandonedDuringABlackhole() throws Exception {
		FaultCampaign.replay(ChaosServers.standalone(this.redis), 1126, Duration.ofSeconds(150),
				Duration.ofSeconds(171));
	}

}
