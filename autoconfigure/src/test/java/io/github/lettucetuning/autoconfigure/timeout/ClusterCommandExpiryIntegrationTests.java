package io.github.lettucetuning.autoconfigure.timeout;

import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Command expiry in a cluster: a stopped master's commands expire within two ticks of
 * their deadline, and its slots serve again once it resumes.
 */
@RedisClusterTest
@Timeout(120)
class ClusterCommandExpiryIntegrationTests {

	private final RedisClusterTopology cluster;

	ClusterCommandExpiryIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	@SuppressWarnings("unchecked")
	void commandsToAStoppedMasterExpireWithinTwoTicks() {
		String nodes = String.join(",", this.cluster.masters().stream().map((n) -> n.host() + ":" + n.port()).toList());
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes,
					"spring.data.redis.timeout=" + CommandExpiryIntegrationTests.TIMEOUT.toMillis() + "ms")
			.run((context) -> {
				RedisAdvancedClusterAsyncCommands<byte[], byte[]> async;
				try (RedisClusterConnection connection = context.getBean(RedisConnectionFactory.class)
					.getClusterConnection()) {
					async = (RedisAdvancedClusterAsyncCommands<byte[], byte[]>) connection.getNativeConnection();
				}
				byte[] key = "stalled-key".getBytes();
				async.set(key, "v".getBytes()).get(5, TimeUnit.SECONDS);
				RedisNode master = this.cluster.masterForKey("stalled-key");
				CommandExpiryIntegrationTests.assertLatenessInOneOfThreeStalls(() -> {
					// Shorter than the cluster node timeout, so the cluster does not fail
					// the master over.
					Faults.pause(master);
					try {
						return CommandExpiryIntegrationTests.expireAll(() -> async.get(key).toCompletableFuture(), 10);
					}
					finally {
						Faults.resume(master);
						Thread.sleep(300);
					}
				});
				CommandExpiryIntegrationTests.assertWheelExpired(context, 10);
				assertThat(new String(async.get(key).get(5, TimeUnit.SECONDS))).isEqualTo("v");
				CommandExpiryIntegrationTests.assertPendingDrainsToZero(context);
			});
	}

}
