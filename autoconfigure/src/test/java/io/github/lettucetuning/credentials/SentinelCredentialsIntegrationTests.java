package io.github.lettucetuning.credentials;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.testsupport.RedisSentinelTest;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import io.lettuce.core.RedisCredentialsProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A credentials provider behind Sentinel: the master's connections authenticate with the
 * provider's credentials and renew them, while the Sentinels, which have no users of
 * their own here, are reached without any.
 */
@RedisSentinelTest
@Timeout(120)
class SentinelCredentialsIntegrationTests {

	private final RedisSentinelTopology sentinel;

	SentinelCredentialsIntegrationTests(RedisSentinelTopology sentinel) {
		this.sentinel = sentinel;
	}

	@Test
	void masterConnectionsUseAndRenewTheProvidersCredentials() {
		String clientName = "creds-sentinel";
		RedisNode master = this.sentinel.currentMaster();
		master.command("ACL", "SETUSER", "sen-0", "reset", "on", ">Sentinel-secret-0", "~*", "&*", "+@all");
		master.command("ACL", "SETUSER", "sen-1", "reset", "on", ">Sentinel-secret-1", "~*", "&*", "+@all");
		RotatingCredentials credentials = new RotatingCredentials("sen-0", "Sentinel-secret-0");
		String sentinels = String.join(",",
				this.sentinel.sentinels().stream().map((node) -> node.host() + ":" + node.port()).toList());
		try {
			ObservabilityIntegrationSupport.contextRunner(clientName)
				.withPropertyValues("spring.data.redis.sentinel.master=" + this.sentinel.masterName(),
						"spring.data.redis.sentinel.nodes=" + sentinels)
				.withBean("sentinelCredentials", RedisCredentialsProvider.class, () -> credentials,
						(definition) -> definition.setPrimary(true))
				.run((context) -> {
					StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
					template.opsForValue().set("sentinel-creds", "v");
					assertThat(ours(master, clientName)).isNotEmpty()
						.allSatisfy((client) -> assertThat(client.fields()).containsEntry("user", "sen-0"));
					credentials.rotate("sen-1", "Sentinel-secret-1");
					await(Duration.ofSeconds(5), () -> "master connections authenticated as sen-1",
							() -> ours(master, clientName).stream()
								.allMatch((client) -> Objects.equals(client.fields().get("user"), "sen-1")));
					assertThat(template.opsForValue().get("sentinel-creds")).isEqualTo("v");
				});
		}
		finally {
			master.command("ACL", "DELUSER", "sen-0", "sen-1");
		}
	}

	private static List<ClientInfo> ours(RedisNode node, String clientName) {
		return node.clientList().stream().filter((client) -> client.name().equals(clientName)).toList();
	}

}
