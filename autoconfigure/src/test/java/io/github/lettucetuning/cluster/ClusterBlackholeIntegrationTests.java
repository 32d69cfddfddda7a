package io.github.lettucetuning.cluster;

import java.time.Duration;

import io.github.lettucetuning.socket.KeepAliveCustomizer;
import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.fault.NetworkBlackhole;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cluster master whose host dies without a TCP reset (its ports blackholed, its process
 * stopped): with TCP_USER_TIMEOUT the client drops the connection within that timeout and
 * moves to the promoted replica; with Spring Boot's stock settings the connection stays
 * up, and commands for that master's slots keep timing out.
 */
@RedisClusterTest
@Timeout(120)
class ClusterBlackholeIntegrationTests {

	private static final Duration TCP_USER_TIMEOUT = Duration.ofSeconds(3);

	private static final Duration DETECTION_MARGIN = Duration.ofSeconds(2);

	private final RedisClusterTopology cluster;

	ClusterBlackholeIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@BeforeEach
	void requireBlackholing() {
		NetworkBlackhole.assumeAvailable();
	}

	@Test
	void tcpUserTimeoutDropsTheDeadConnectionAndTrafficMovesToThePromotedReplica() {
		ApplicationContextRunner runner = FaultTestSupport.clusterContextRunner("blackhole-tuned", this.cluster)
			.withBean(KeepAliveCustomizer.class,
					() -> new KeepAliveCustomizer(Duration.ofSeconds(1), Duration.ofSeconds(1), 2))
			.withPropertyValues(
					"lettuce.tuning.socket.tcp-user-timeout.duration=" + TCP_USER_TIMEOUT.toMillis() + "ms");
		runner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			RedisNode master = this.cluster.masters().get(0);
			try (FaultLoad load = FaultLoad.start(template, FaultTestSupport.THREADS);
					EventLog events = new EventLog(context.getBean(ClientResources.class))) {
				FaultLoad.sleep(Duration.ofSeconds(1));
				long fault = load.now();
				events.markFault(fault);
				try (DeadHost dead = DeadHost.of(master)) {
					this.cluster.awaitReplicaPromoted(master);
					long promoted = load.now();
					assertThat(load.awaitQuiet(Duration.ofSeconds(3), Duration.ofSeconds(45))).isTrue();
					load.close();
					long disconnected = events.firstTimeAfter(fault, EventLog.disconnectedFrom(master.port()));
					events.print("blackhole-tuned");
					assertThat(disconnected).as("the dead connection was closed").isPositive();
					Duration detection = Duration.ofNanos(disconnected - fault);
					load.report("cluster-dead-host-tuned",
							"tcp-user-timeout=3s, keep-alive=1s/1s/2, timeout=1s, connect-timeout=1s",
							"connection-dropped=" + FaultLoad.seconds(detection) + " promoted="
									+ FaultLoad.seconds(Duration.ofNanos(promoted - fault)) + " recovered="
									+ FaultLoad.seconds(load.recoveredAfter(fault)));
					assertThat(detection).isLessThanOrEqualTo(TCP_USER_TIMEOUT.plus(DETECTION_MARGIN));
					assertThat(load.maxCommandDuration()).isLessThanOrEqualTo(FaultTestSupport.maxCommandDuration());
				}
			}
			finally {
				this.cluster.awaitClusterOk();
			}
		});
	}

	@Test
	void stockSettingsLeaveTheConnectionToTheDeadHostOpen() {
		ApplicationContextRunner runner = FaultTestSupport.clusterContextRunner("blackhole-stock", this.cluster)
			.withPropertyValues("lettuce.tuning.enabled=false");
		Duration observed = TCP_USER_TIMEOUT.plus(DETECTION_MARGIN).plusSeconds(3);
		runner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			RedisNode master = this.cluster.masters().get(0);
			try (FaultLoad load = FaultLoad.start(template, FaultTestSupport.THREADS);
					EventLog events = new EventLog(context.getBean(ClientResources.class))) {
				FaultLoad.sleep(Duration.ofSeconds(1));
				long fault = load.now();
				events.markFault(fault);
				try (DeadHost dead = DeadHost.of(master)) {
					this.cluster.awaitReplicaPromoted(master);
					long promoted = load.now();
					FaultLoad.sleep(observed.minus(Duration.ofNanos(load.now() - fault)));
					long end = load.now();
					boolean stillFailing = load.failedAfter(end - Duration.ofSeconds(1).toNanos());
					load.close();
					long disconnected = events.firstTimeAfter(fault, EventLog.disconnectedFrom(master.port()));
					events.print("blackhole-stock");
					load.report("cluster-dead-host-stock",
							"Spring Boot stock (lettuce.tuning.enabled=false), timeout=1s",
							"observed=" + FaultLoad.seconds(observed) + " promoted="
									+ FaultLoad.seconds(Duration.ofNanos(promoted - fault)) + " connection-dropped="
									+ ((disconnected > 0) ? FaultLoad.seconds(Duration.ofNanos(disconnected - fault))
											: "never")
									+ " still-failing=" + stillFailing);
					assertThat(disconnected).as("the connection to the dead host is still open").isEqualTo(-1);
					assertThat(stillFailing).as("commands for the dead master's slots still fail").isTrue();
				}
			}
			finally {
				this.cluster.awaitClusterOk();
			}
		});
	}

	/**
	 * A host that vanished: its client and cluster bus ports drop every packet and its
	 * process is frozen, so nobody gets a reset. Closing brings it back.
	 */
	private static final class DeadHost implements AutoCloseable {

		private final RedisNode node;

		private final NetworkBlackhole client;

		private final NetworkBlackhole bus;

		private DeadHost(RedisNode node, NetworkBlackhole client, NetworkBlackhole bus) {
			this.node = node;
			this.client = client;
			this.bus = bus;
		}

		static DeadHost of(RedisNode node) {
			NetworkBlackhole client = Faults.blackhole(node);
			NetworkBlackhole bus = NetworkBlackhole.drop(node.port() + 10000);
			Faults.pause(node);
			return new DeadHost(node, client, bus);
		}

		@Override
		public void close() {
			Faults.resume(this.node);
			this.client.heal();
			this.bus.heal();
		}

	}

}
