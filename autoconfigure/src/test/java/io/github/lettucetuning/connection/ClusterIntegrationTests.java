package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.List;

import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.apache.commons.pool2.impl.GenericObjectPool;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared and multi mode against a real 6-node cluster: keys spread over all masters, the
 * shared cluster connection opens one connection per master it talks to.
 */
@RedisClusterTest
@Timeout(180)
class ClusterIntegrationTests {

	private final RedisClusterTopology cluster;

	ClusterIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@BeforeEach
	void flush() {
		for (RedisNode master : this.cluster.masters()) {
			master.command("FLUSHALL");
		}
	}

	private ApplicationContextRunner contextRunner(String clientName) {
		String nodes = String.join(",", this.cluster.masters().stream().map((n) -> n.host() + ":" + n.port()).toList());
		return TopologiesIntegrationSupport.contextRunner(clientName)
			.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes);
	}

	// A cluster connection holds one socket per master for keyed commands plus its
	// default connection to a seed node for keyless ones.
	private long clusterConnectionSockets() {
		return this.cluster.masters().size() + 1;
	}

	private List<Long> connectionsPerNode(String clientName) {
		return this.cluster.masters().stream().map((node) -> node.countClients(clientName)).toList();
	}

	private long totalConnections(String clientName) {
		return this.cluster.nodes().stream().mapToLong((node) -> node.countClients(clientName)).sum();
	}

	@Test
	void fiftyThreadsOverOneSharedClusterConnection() {
		contextRunner("cluster-shared").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			long failures = Load.run(50, 100, (i) -> {
				template.opsForValue().set("key:" + i, "value:" + i);
				assertThat(template.opsForValue().get("key:" + i)).isEqualTo("value:" + i);
			});
			assertThat(failures).isZero();
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			assertThat(factory.getSharedConnections()).singleElement()
				.isInstanceOf(StatefulRedisClusterConnection.class);
			for (RedisNode master : this.cluster.masters()) {
				assertThat(master.commandAsString("DBSIZE")).as("keys on %s", master).isNotEqualTo("0");
			}
			assertThat(connectionsPerNode("cluster-shared")).allSatisfy((count) -> assertThat(count).isBetween(1L, 2L));
			assertThat(totalConnections("cluster-shared")).isEqualTo(clusterConnectionSockets());
			assertThat(this.cluster.masterForKey("key:4999").commandAsString("GET", "key:4999"))
				.isEqualTo("value:4999");
		});
	}

	@Test
	void multiModeOpensOneClusterConnectionPerMemberSharingOneTopology() {
		contextRunner("cluster-multi")
			.withPropertyValues("lettuce.tuning.connection.mode=multi", "lettuce.tuning.connection.multi.size=3")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				long failures = Load.run(30, 100, (i) -> template.opsForValue().set("m:" + i, "v" + i));
				assertThat(failures).isZero();
				LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
				assertThat(factory.getSharedConnections()).hasSize(3)
					.allSatisfy(
							(connection) -> assertThat(connection).isInstanceOf(StatefulRedisClusterConnection.class));
				StatefulRedisClusterConnection<?, ?> first = (StatefulRedisClusterConnection<?, ?>) factory
					.getSharedConnections()
					.get(0);
				StatefulRedisClusterConnection<?, ?> second = (StatefulRedisClusterConnection<?, ?>) factory
					.getSharedConnections()
					.get(1);
				assertThat(first.getPartitions()).isSameAs(second.getPartitions());
				assertThat(totalConnections("cluster-multi")).isEqualTo(3 * clusterConnectionSockets());
			});
	}

	@Test
	void reactiveTemplateWorksAgainstTheCluster() {
		contextRunner("cluster-reactive").run((context) -> {
			ReactiveStringRedisTemplate template = context.getBean(ReactiveStringRedisTemplate.class);
			for (int i = 0; i < 50; i++) {
				assertThat(template.opsForValue().set("r:" + i, "v" + i).block(Duration.ofSeconds(5))).isTrue();
			}
			assertThat(template.opsForValue().get("r:7").block(Duration.ofSeconds(5))).isEqualTo("v7");
		});
	}

	@Test
	void prewarmFillsThePoolThatDedicatedClusterWorkBorrowsFrom() {
		contextRunner("cluster-prewarm")
			.withPropertyValues("spring.data.redis.lettuce.pool.min-idle=2",
					"lettuce.tuning.connection.pool.prewarm=true")
			.run((context) -> {
				LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
				DedicatedConnectionPool pool = (DedicatedConnectionPool) factory.getDedicatedConnectionProvider();
				assertThat(pool).isNotNull();
				assertThat(pool.pools()).containsOnlyKeys(StatefulConnection.class);
				GenericObjectPool<?> prewarmed = pool.pools().get(StatefulConnection.class);
				assertThat(prewarmed.getNumIdle()).isEqualTo(2);
				assertThat(totalConnections("cluster-prewarm")).isGreaterThanOrEqualTo(2);
				// A blocking pop is dedicated work: it must take a prewarmed connection,
				// not open one.
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				assertThat(template.opsForList().leftPop("prewarm:q", Duration.ofMillis(100))).isNull();
				assertThat(prewarmed.getCreatedCount()).isEqualTo(2);
				assertThat(pool.pools()).containsOnlyKeys(StatefulConnection.class);
			});
	}

}
