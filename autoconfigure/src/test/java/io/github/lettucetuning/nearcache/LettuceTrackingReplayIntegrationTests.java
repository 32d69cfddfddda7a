package io.github.lettucetuning.nearcache;

import java.time.Duration;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisClient;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link InvalidationTracking} builds on: Lettuce reconnects a connection that Redis
 * closed, but does not send {@code CLIENT TRACKING} again, so whoever turned it on must
 * do it again after every reconnect.
 */
@RedisStandaloneTest
@Timeout(60)
class LettuceTrackingReplayIntegrationTests {

	private final RedisStandalone redis;

	LettuceTrackingReplayIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void lettuceDoesNotReplayClientTrackingAfterAReconnect() {
		RedisClient client = RedisClient.create(this.redis.uri());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			connection.sync().clientTracking(TrackingArgs.Builder.enabled().bcast().prefixes("replay::"));
			long before = connection.sync().clientId();
			assertThat(flagsOf(before)).contains("t");
			this.redis.node().command("CLIENT", "KILL", "ID", String.valueOf(before));
			Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> {
				try {
					return connection.sync().clientId() != before;
				}
				catch (RuntimeException ex) {
					return false;
				}
			});
			assertThat(flagsOf(connection.sync().clientId())).doesNotContain("t");
		}
		finally {
			client.shutdown();
		}
	}

	private String flagsOf(long id) {
		return this.redis.node()
			.clientList()
			.stream()
			.filter((client) -> client.id() == id)
			.map(ClientInfo::fields)
			.map((fields) -> fields.get("flags"))
			.findFirst()
			.orElseThrow();
	}

}
