package io.github.lettucetuning.credentials;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.lettuce.core.RedisCredentialsProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A credentials provider in a cluster: Lettuce gives the seed nodes' provider to the
 * connections of every node it discovers, and re-authenticates them all when it issues
 * new credentials.
 */
@RedisClusterTest
@Timeout(120)
class ClusterCredentialsIntegrationTests {

	private final RedisClusterTopology cluster;

	ClusterCredentialsIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	void everyNodeConnectionUsesAndRenewsTheProvidersCredentials() {
		String clientName = "creds-cluster";
		createUserEverywhere("clu-0", "Cluster-secret-0");
		createUserEverywhere("clu-1", "Cluster-secret-1");
		RotatingCredentials credentials = new RotatingCredentials("clu-0", "Cluster-secret-0");
		String nodes = String.join(",", this.cluster.masters().stream().map((n) -> n.host() + ":" + n.port()).toList());
		ObservabilityIntegrationSupport.contextRunner(clientName)
			.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes,
					"lettuce.tuning.credentials.provider=clusterCredentials")
			.withBean("clusterCredentials", RedisCredentialsProvider.class, () -> credentials)
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				writeToEverySlotOwner(template);
				assertThat(this.cluster.masters())
					.allSatisfy((master) -> assertThat(ours(master, clientName)).isNotEmpty()
						.allSatisfy((client) -> assertThat(client.fields()).containsEntry("user", "clu-0")));
				credentials.rotate("clu-1", "Cluster-secret-1");
				// Lettuce 7.5 re-authenticates the connections to the nodes, but not the
				// cluster connection's default one to a seed node (the one that asked
				// CLUSTER MYID): it keeps its first credentials until it reconnects.
				await(Duration.ofSeconds(5),
						() -> "every node connection authenticated as clu-1: " + describe(clientName),
						() -> this.cluster.nodes()
							.stream()
							.flatMap((node) -> ours(node, clientName).stream())
							.filter((client) -> !client.cmd().equals("cluster|myid"))
							.allMatch((client) -> Objects.equals(client.fields().get("user"), "clu-1")));
				assertThat(this.cluster.nodes().stream().flatMap((node) -> ours(node, clientName).stream()))
					.filteredOn((client) -> !Objects.equals(client.fields().get("user"), "clu-1"))
					.as("connections not re-authenticated: %s", describe(clientName))
					.hasSizeLessThanOrEqualTo(1)
					.allSatisfy((client) -> assertThat(client.cmd()).isEqualTo("cluster|myid"));
				writeToEverySlotOwner(template);
			});
		deleteUserEverywhere("clu-0");
		deleteUserEverywhere("clu-1");
	}

	private List<String> describe(String clientName) {
		return this.cluster.nodes()
			.stream()
			.map((node) -> node.port() + "="
					+ ours(node, clientName).stream()
						.map((client) -> client.fields().get("user") + "/" + client.cmd())
						.toList())
			.toList();
	}

	private static void writeToEverySlotOwner(StringRedisTemplate template) {
		for (int i = 0; i < 64; i++) {
			template.opsForValue().set("cluster-creds:" + i, "v");
		}
	}

	private void createUserEverywhere(String user, String password) {
		for (RedisNode node : this.cluster.nodes()) {
			node.command("ACL", "SETUSER", user, "reset", "on", ">" + password, "~*", "&*", "+@all");
		}
	}

	private void deleteUserEverywhere(String user) {
		for (RedisNode node : this.cluster.nodes()) {
			node.command("ACL", "DELUSER", user);
		}
	}

	private static List<ClientInfo> ours(RedisNode node, String clientName) {
		return node.clientList().stream().filter((client) -> client.name().equals(clientName)).toList();
	}

}
