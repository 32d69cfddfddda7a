package io.github.lettucetuning.nearcache;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The near cache's connections open on the event loops next in turn and leave the
 * application's on the loops they would have had, against a real Redis: the loop of a
 * connection is the thread that completes its commands. Without giving the turns back
 * (the first test, the problem itself), the application's second connection shares the
 * first one's loop when there are two.
 */
@RedisStandaloneTest
@Timeout(60)
class EventLoopTurnsIntegrationTests {

	private final RedisStandalone redis;

	private ClientResources resources;

	private RedisClient client;

	EventLoopTurnsIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
		this.resources = resources(2);
		this.client = clientOn(this.resources);
	}

	@AfterEach
	void shutdown() {
		this.client.shutdown();
		this.resources.shutdown(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
	}

	@Test
	void aConnectionOpenedBetweenTwoOfTheApplicationsPutsThemOnOneLoop() {
		StatefulRedisConnection<String, String> first = this.client.connect();
		StatefulRedisConnection<String, String> between = this.client.connect();
		StatefulRedisConnection<String, String> second = this.client.connect();
		assertThat(loopOf(second)).isEqualTo(loopOf(first)).isNotEqualTo(loopOf(between));
	}

	@Test
	void turnsGivenBackLeaveTheApplicationsConnectionsOnLoopsOfTheirOwn() {
		StatefulRedisConnection<String, String> first = this.client.connect();
		StatefulRedisConnection<String, String> tracking = EventLoopTurns.giveBack(this.resources,
				() -> this.client.connect());
		StatefulRedisConnection<String, String> second = this.client.connect();
		assertThat(loopOf(second)).isNotEqualTo(loopOf(first));
		assertThat(tracking.sync().ping()).isEqualTo("PONG");
	}

	// The tracking connection carries the near cache's writes: on the loop of the
	// application's last connection, one loop would carry both while the other idled.
	@Test
	void theNearCachesConnectionOpensOnTheLoopNextInTurnNotOnTheLastOnesLoop() {
		StatefulRedisConnection<String, String> first = this.client.connect();
		StatefulRedisConnection<String, String> tracking = EventLoopTurns.giveBack(this.resources,
				() -> this.client.connect());
		StatefulRedisConnection<String, String> second = this.client.connect();
		assertThat(loopOf(tracking)).isNotEqualTo(loopOf(first)).isEqualTo(loopOf(second));
	}

	@Test
	void turnsAreGivenBackWhateverTheNumberOfLoopsAndConnections() {
		shutdown();
		this.resources = resources(3);
		this.client = clientOn(this.resources);
		StatefulRedisConnection<String, String> first = this.client.connect();
		List<StatefulRedisConnection<String, String>> tracking = EventLoopTurns.giveBack(this.resources,
				() -> List.of(this.client.connect(), this.client.connect()));
		StatefulRedisConnection<String, String> second = this.client.connect();
		StatefulRedisConnection<String, String> third = this.client.connect();
		assertThat(loopOf(first)).isNotEqualTo(loopOf(second)).isNotEqualTo(loopOf(third));
		assertThat(loopOf(second)).isNotEqualTo(loopOf(third));
		assertThat(loopOf(tracking.get(0))).isEqualTo(loopOf(second));
		assertThat(loopOf(tracking.get(1))).isEqualTo(loopOf(third));
	}

	@Test
	void anOpeningThatFailsGivesBackItsTurnsToo() {
		StatefulRedisConnection<String, String> first = this.client.connect();
		assertThatIllegalStateException().isThrownBy(() -> EventLoopTurns.giveBack(this.resources, () -> {
			this.client.connect();
			throw new IllegalStateException("refused");
		})).withMessage("refused");
		StatefulRedisConnection<String, String> second = this.client.connect();
		assertThat(loopOf(second)).isNotEqualTo(loopOf(first));
	}

	private static ClientResources resources(int loops) {
		return DefaultClientResources.builder().ioThreadPoolSize(loops).build();
	}

	private RedisClient clientOn(ClientResources resources) {
		return RedisClient.create(resources, RedisURI.create(this.redis.host(), this.redis.port()));
	}

	// A blocking pop that waits out its timeout: the reply comes after the callback is
	// registered, so the callback runs on the loop that read it.
	private String loopOf(StatefulRedisConnection<String, String> connection) {
		CompletableFuture<String> thread = connection.async()
			.blpop(0.05, "event-loop-turns:none")
			.toCompletableFuture()
			.thenApply((reply) -> Thread.currentThread().getName());
		return thread.orTimeout(Duration.ofSeconds(5).toMillis(), TimeUnit.MILLISECONDS).join();
	}

}
