package io.github.lettucetuning.testsupport.topology;

import io.github.lettucetuning.testsupport.RedisSentinelTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import org.junit.jupiter.api.MethodOrderer.OrderAnnotation;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Integration tests for {@link RedisSentinelTopology}.
 */
@RedisSentinelTest(masterName = "orders")
@TestMethodOrder(OrderAnnotation.class)
class RedisSentinelTopologyIntegrationTests {

	@Test
	@Order(1)
	void topologyIsUpAndEverySentinelSeesEveryone(RedisSentinelTopology sentinel) {
		assertThat(sentinel.masterName()).isEqualTo("orders");
		assertThat(sentinel.currentMaster()).isSameAs(sentinel.master());
		assertThat(sentinel.master().role()).isEqualTo("master");
		assertThat(sentinel.replica().info("replication")).containsEntry("role", "slave")
			.containsEntry("master_port", Integer.toString(sentinel.master().port()))
			.containsEntry("master_link_status", "up");
		assertThat(sentinel.sentinels()).hasSize(3).allSatisfy((node) -> {
			assertThat(node.role()).isEqualTo("sentinel");
			assertThat(node.info("sentinel")).containsEntry("sentinel_masters", "1");
		});
		assertThat(sentinel.nodes()).hasSize(5);
		assertThat(sentinel.sentinelUri()).startsWith("redis-sentinel://127.0.0.1:").endsWith("#orders");
	}

	@Test
	@Order(2)
	void writesOnTheMasterReachTheReplica(RedisSentinelTopology sentinel) {
		sentinel.master().command("SET", "replicated", "yes");
		assertThat(sentinel.master().command("WAIT", "1", "5000")).isEqualTo(1L);
		assertThat(sentinel.replica().command("GET", "replicated")).isEqualTo("yes");
	}

	@Test
	@Order(3)
	void failoverPromotesTheReplica(RedisSentinelTopology sentinel) {
		RedisNode formerMaster = sentinel.master();
		RedisNode formerReplica = sentinel.replica();

		RedisNode newMaster = sentinel.failover();

		assertThat(newMaster).isSameAs(formerReplica).isSameAs(sentinel.master()).isSameAs(sentinel.currentMaster());
		assertThat(newMaster.role()).isEqualTo("master");
		assertThat(sentinel.replica()).isSameAs(formerMaster);
		assertThat(formerMaster.info("replication")).containsEntry("role", "slave")
			.containsEntry("master_port", Integer.toString(newMaster.port()));
		for (RedisNode node : sentinel.sentinels()) {
			Object address = node.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "orders");
			assertThat(address).asList().containsExactly("127.0.0.1", Integer.toString(newMaster.port()));
		}
		newMaster.command("SET", "after-failover", "1");
		assertThat(newMaster.command("WAIT", "1", "5000")).isEqualTo(1L);
		assertThat(formerMaster.command("GET", "after-failover")).isEqualTo("1");
	}

}
