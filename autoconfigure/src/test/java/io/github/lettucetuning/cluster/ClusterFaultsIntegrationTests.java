package io.github.lettucetuning.cluster;

import java.time.Duration;

import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failover, crash and stall of a cluster master under load, with lettuce-tuning's
 * defaults: failures stay inside a bounded window, no command outlives its timeout, and
 * traffic recovers without restarting the application.
 */
@RedisClusterTest
@Timeout(120)
class ClusterFaultsIntegrationTests {

	private final RedisClusterTopology cluster;

	ClusterFaultsIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	void plannedFailoverFailsOnlyInsideABoundedWindow() {
		FaultTestSupport.clusterContextRunner("cluster-failover", this.cluster).run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			RedisNode master = this.cluster.masters().get(0);
			RedisNode replica = this.cluster.replicaOf(master);
			long fault;
			try (FaultLoad load = FaultLoad.start(template, FaultTestSupport.THREADS)) {
				FaultLoad.sleep(Duration.ofSeconds(1));
				fault = load.now();
				this.cluster.failover(replica);
				assertThat(load.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(30))).isTrue();
				load.close();
				load.report("cluster-failover", "defaults, timeout=1s",
						"recovered=" + FaultLoad.seconds(load.recoveredAfter(fault)));
				assertThat(load.maxCommandDuration()).isLessThanOrEqualTo(FaultTestSupport.maxCommandDuration());
				assertThat(load.failureWindow()).isLessThan(Duration.ofSeconds(5));
				assertThat(load.successes()).isPositive();
				// The former master was demoted in place and kept its connections: its
				// MOVED replies were followed, no write failed READONLY
				assertThat(master.role()).isEqualTo("slave");
				assertThat(load.failureTypes().keySet()).noneMatch((type) -> type.contains("ReadOnly"));
			}
		});
	}

	@Test
	void crashedMasterIsReplacedWithoutRestartingTheApplication() {
		FaultTestSupport.clusterContextRunner("cluster-kill", this.cluster).run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			RedisNode master = this.cluster.masters().get(0);
			try (FaultLoad load = FaultLoad.start(template, FaultTestSupport.THREADS);
					EventLog events = new EventLog(context.getBean(ClientResources.class))) {
				FaultLoad.sleep(Duration.ofSeconds(1));
				long fault = load.now();
				events.markFault(fault);
				this.cluster.killMaster(master);
				this.cluster.awaitReplicaPromoted(master);
				long promoted = load.now();
				assertThat(load.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(40))).isTrue();
				load.close();
				Duration recovered = load.recoveredAfter(fault);
				load.report("cluster-kill-master", "defaults, timeout=1s, cluster-node-timeout=2s",
						"promoted=" + FaultLoad.seconds(Duration.ofNanos(promoted - fault)) + " recovered="
								+ FaultLoad.seconds(recovered));
				assertThat(load.maxCommandDuration()).isLessThanOrEqualTo(FaultTestSupport.maxCommandDuration());
				events.print("cluster-kill-master");
				assertThat(recovered).isLessThan(Duration.ofNanos(promoted - fault).plusSeconds(8));
			}
			finally {
				master.restart();
				this.cluster.awaitClusterOk();
			}
		});
	}

	@Test
	void crashedMasterWithStockSettingsRecoversOnlyWhenAReconnectTriggersARefresh() {
		FaultTestSupport.clusterContextRunner("cluster-kill-stock", this.cluster)
			.withPropertyValues("lettuce.tuning.enabled=false")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				RedisNode master = this.cluster.masters().get(0);
				try (FaultLoad load = FaultLoad.start(template, FaultTestSupport.THREADS)) {
					FaultLoad.sleep(Duration.ofSeconds(1));
					long fault = load.now();
					this.cluster.killMaster(master);
					this.cluster.awaitReplicaPromoted(master);
					long promoted = load.now();
					boolean recovered = load.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(40));
					load.close();
					load.report("cluster-kill-master-stock",
							"Spring Boot stock (lettuce.tuning.enabled=false), timeout=1s",
							"promoted=" + FaultLoad.seconds(Duration.ofNanos(promoted - fault)) + " recovered="
									+ (recovered ? FaultLoad.seconds(load.recoveredAfter(fault)) : "no (40s)"));
					assertThat(load.maxCommandDuration()).isLessThanOrEqualTo(FaultTestSupport.maxCommandDuration());
				}
				finally {
					master.restart();
					this.cluster.awaitClusterOk();
				}
			});
	}

	@Test
	void stalledMasterTimesCommandsOutAndRecoversOnContinue() {
		setNodeTimeout(Duration.ofSeconds(60));
		try {
			FaultTestSupport.clusterContextRunner("cluster-stall", this.cluster).run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				RedisNode master = this.cluster.masters().get(0);
				try (FaultLoad load = FaultLoad.start(template, FaultTestSupport.THREADS)) {
					FaultLoad.sleep(Duration.ofSeconds(1));
					long fault = load.now();
					Faults.pause(master);
					FaultLoad.sleep(Duration.ofSeconds(4));
					Faults.resume(master);
					long resumed = load.now();
					assertThat(load.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(30))).isTrue();
					load.close();
					load.report("cluster-sigstop-4s", "defaults, timeout=1s",
							"recovered-after-sigcont=" + FaultLoad.seconds(load.recoveredAfter(resumed)));
					assertThat(load.failures()).isPositive();
					assertThat(load.maxCommandDuration()).isLessThanOrEqualTo(FaultTestSupport.maxCommandDuration());
					assertThat(load.recoveredAfter(resumed)).isLessThan(FaultTestSupport.maxCommandDuration());
					// The 1 s command timeout fires first; the outage guard then sees the
					// silent master as stalled (2 s) and fails the rest of its commands
					// fast until it answers again
					assertThat(load.failureTypes().keySet()).allMatch((type) -> type.contains("Timeout")
							|| type.contains("RedisStalledException") || type.contains("RedisUnreachableException"));
				}
				finally {
					Faults.resume(master);
				}
			});
		}
		finally {
			setNodeTimeout(RedisClusterTopology.DEFAULT_NODE_TIMEOUT);
			this.cluster.awaitClusterOk();
		}
	}

	// A stall shorter than cluster-node-timeout: the cluster keeps the master.
	private void setNodeTimeout(Duration timeout) {
		for (RedisNode node : this.cluster.nodes()) {
			if (node.isAlive()) {
				node.command("CONFIG", "SET", "cluster-node-timeout", Long.toString(timeout.toMillis()));
			}
		}
	}

}
