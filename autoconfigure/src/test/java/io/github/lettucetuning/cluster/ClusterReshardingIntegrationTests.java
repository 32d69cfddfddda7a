package io.github.lettucetuning.cluster;

import java.time.Duration;
import java.util.List;

import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A new master joins the cluster and slots move to it under load. With lettuce-tuning's
 * defaults (no membership validation) the client follows the redirects to the node it
 * does not know yet and no command fails; with membership validation on, the redirects to
 * the unknown node are refused until a topology refresh.
 */
@RedisClusterTest
@Timeout(120)
class ClusterReshardingIntegrationTests {

	private static final int SLOTS = 200;

	private final RedisClusterTopology cluster;

	ClusterReshardingIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	void slotsMovingToANewNodeFailNoCommand() {
		FaultTestSupport.clusterContextRunner("reshard", this.cluster).run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			try (FaultLoad load = FaultLoad.start(template, FaultTestSupport.THREADS)) {
				FaultLoad.sleep(Duration.ofSeconds(1));
				long fault = load.now();
				RedisNode added = this.cluster.addEmptyMaster();
				List<Integer> moved = this.cluster.migrateSlots(this.cluster.masterForSlot(16383), added, SLOTS);
				Duration migration = Duration.ofNanos(load.now() - fault);
				FaultLoad.sleep(Duration.ofSeconds(2));
				load.close();
				load.report("cluster-reshard", "defaults (validate-membership=false), timeout=1s",
						"slots=" + moved.size() + " migration=" + FaultLoad.seconds(migration));
				assertThat(load.failures()).isZero();
				assertThat(load.maxCommandDuration()).isLessThanOrEqualTo(FaultTestSupport.maxCommandDuration());
			}
		});
	}

	@Test
	void membershipValidationRefusesRedirectsToTheNewNode() {
		FaultTestSupport.clusterContextRunner("reshard-validate", this.cluster)
			.withBean(LettuceClientOptionsBuilderCustomizer.class,
					() -> (builder) -> ((ClusterClientOptions.Builder) builder).validateClusterNodeMembership(true))
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				try (FaultLoad load = FaultLoad.start(template, FaultTestSupport.THREADS);
						EventLog events = new EventLog(context.getBean(ClientResources.class))) {
					FaultLoad.sleep(Duration.ofSeconds(1));
					long fault = load.now();
					events.markFault(fault);
					RedisNode added = this.cluster.addEmptyMaster();
					List<Integer> moved = this.cluster.migrateSlots(this.cluster.masterForSlot(16383), added, SLOTS);
					Duration migration = Duration.ofNanos(load.now() - fault);
					assertThat(load.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(40))).isTrue();
					load.close();
					events.print("reshard-validate");
					load.report("cluster-reshard-validate-membership", "validate-membership=true, timeout=1s",
							"slots=" + moved.size() + " migration=" + FaultLoad.seconds(migration) + " recovered="
									+ FaultLoad.seconds(load.recoveredAfter(fault)));
					assertThat(load.failures()).isPositive();
					// The refused redirects are what shows the setting matters; on a busy
					// machine a command may also time out while the slots move.
					assertThat(load.failureTypes().keySet())
						.anyMatch((type) -> type.startsWith("UnknownPartitionException"))
						.allMatch((type) -> type.startsWith("UnknownPartitionException")
								|| type.startsWith("RedisCommandTimeoutException"));
					assertThat(load.maxCommandDuration()).isLessThanOrEqualTo(FaultTestSupport.maxCommandDuration());
				}
			});
	}

}
