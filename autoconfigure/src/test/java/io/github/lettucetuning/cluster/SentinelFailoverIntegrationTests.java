package io.github.lettucetuning.cluster;

import java.time.Duration;
import java.util.stream.Collectors;

import io.github.lettucetuning.testsupport.RedisSentinelTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Sentinel failover under load: the application follows the new master without a
 * restart, as soon as Sentinel announces it.
 */
@RedisSentinelTest
@Timeout(120)
class SentinelFailoverIntegrationTests {

	private final RedisSentinelTopology sentinel;

	SentinelFailoverIntegrationTests(RedisSentinelTopology sentinel) {
		this.sentinel = sentinel;
	}

	@Test
	void failoverIsFollowedWithoutRestartingTheApplication() {
		contextRunner("sentinel-failover").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			try (FaultLoad load = FaultLoad.start(template, FaultTestSupport.THREADS);
					EventLog events = new EventLog(context.getBean(ClientResources.class))) {
				FaultLoad.sleep(Duration.ofSeconds(1));
				long fault = load.now();
				events.markFault(fault);
				RedisNode promoted = this.sentinel.failover();
				long failedOver = load.now();
				boolean quiet = load.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(20));
				load.close();
				events.print("sentinel-failover");
				load.report("sentinel-failover", "defaults, timeout=1s, down-after=1s",
						"failover=" + FaultLoad.seconds(Duration.ofNanos(failedOver - fault)) + " recovered="
								+ FaultLoad.seconds(load.recoveredAfter(fault)));
				assertThat(quiet).as("traffic recovered").isTrue();
				assertThat(load.maxCommandDuration()).isLessThanOrEqualTo(FaultTestSupport.maxCommandDuration());
				assertThat(promoted.commandAsString("GET", "fault:1")).isNotNull();
			}
		});
	}

	// The +switch-master watch missed the failover; the former master became a replica
	// without dropping its clients (as an operator's REPLICAOF does). Its first READONLY
	// closes the connection, and the reconnect asks Sentinel for the new master.
	@Test
	void aDemotedMasterTheSwitchMasterWatchMissedIsFollowedOnItsFirstReadOnly() {
		contextRunner("sentinel-demoted").withPropertyValues("lettuce.tuning.sentinel.follow-switch-master=false")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				try (FaultLoad load = FaultLoad.start(template, FaultTestSupport.THREADS)) {
					FaultLoad.sleep(Duration.ofSeconds(1));
					long fault = load.now();
					RedisNode promoted = this.sentinel.failover();
					long demoted = load.now();
					boolean quiet = load.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(20));
					load.close();
					load.report("sentinel-demoted-without-switch-master-watch",
							"lettuce.tuning.sentinel.follow-switch-master=false, timeout=1s",
							"failover-and-demotion=" + FaultLoad.seconds(Duration.ofNanos(demoted - fault))
									+ " recovered=" + FaultLoad.seconds(load.recoveredAfter(fault)) + " failures="
									+ load.failureTypes());
					assertThat(quiet).as("traffic recovered").isTrue();
					assertThat(load.recoveredAfter(fault))
						.isLessThanOrEqualTo(Duration.ofNanos(demoted - fault).plusSeconds(2));
					assertThat(load.failureTypes().keySet())
						.allMatch((type) -> type.startsWith("RedisReadOnlyException")
								|| type.startsWith("RedisRoleChangedException"));
					assertThat(promoted.commandAsString("GET", "fault:1")).isNotNull();
				}
			});
	}

	// The same without the starter's role-change reconnect: writes keep failing. Sentinel
	// drops the clients only when it reconfigures a returning master itself.
	@Test
	void withoutFollowingSwitchMasterWritesKeepFailingOnTheFormerMaster() {
		contextRunner("sentinel-failover-stock")
			.withPropertyValues("lettuce.tuning.sentinel.follow-switch-master=false",
					"lettuce.tuning.resilience.role-change.enabled=false")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				try (FaultLoad load = FaultLoad.start(template, FaultTestSupport.THREADS)) {
					FaultLoad.sleep(Duration.ofSeconds(1));
					long fault = load.now();
					this.sentinel.failover();
					long failedOver = load.now();
					FaultLoad.sleep(Duration.ofSeconds(5));
					boolean stillFailing = load.failedAfter(load.now() - Duration.ofSeconds(1).toNanos());
					load.close();
					load.report("sentinel-failover-without-switch-master-watch",
							"lettuce.tuning.sentinel.follow-switch-master=false, role-change.enabled=false, timeout=1s",
							"failover=" + FaultLoad.seconds(Duration.ofNanos(failedOver - fault))
									+ " still-failing-5s-later=" + stillFailing);
					assertThat(stillFailing).isTrue();
					assertThat(load.failureTypes().keySet())
						.allMatch((type) -> type.startsWith("RedisReadOnlyException"));
				}
			});
	}

	private ApplicationContextRunner contextRunner(String clientName) {
		String sentinels = this.sentinel.sentinels()
			.stream()
			.map((node) -> node.host() + ":" + node.port())
			.collect(Collectors.joining(","));
		return FaultTestSupport.contextRunner(clientName)
			.withPropertyValues("spring.data.redis.sentinel.master=" + this.sentinel.masterName(),
					"spring.data.redis.sentinel.nodes=" + sentinels);
	}

}
