package io.github.lettucetuning.cluster;

import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.RedisClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SentinelFailoverWatcher}'s handling of Sentinel messages.
 */
class SentinelFailoverWatcherTests {

	private final RedisClient client = RedisClient.create();

	private final List<String> switched = new ArrayList<>();

	private final SentinelFailoverWatcher watcher = new SentinelFailoverWatcher(this.client, "mymaster", List.of(),
			(host, port) -> this.switched.add(host + ":" + port));

	@AfterEach
	void shutdown() {
		this.watcher.close();
		this.client.shutdown();
	}

	@Test
	void switchOfTheWatchedMasterMovesAwayFromTheFormerMaster() {
		this.watcher.onMessage("+switch-master", "mymaster 10.0.0.1 6379 10.0.0.2 6380");
		assertThat(this.switched).containsExactly("10.0.0.1:6379");
	}

	@Test
	void otherMastersAndChannelsAreIgnored() {
		this.watcher.onMessage("+switch-master", "othermaster 10.0.0.1 6379 10.0.0.2 6380");
		this.watcher.onMessage("+sdown", "master mymaster 10.0.0.1 6379");
		this.watcher.onMessage("+switch-master", "mymaster 10.0.0.1");
		this.watcher.onMessage("+switch-master", "mymaster 10.0.0.1 port 10.0.0.2 6380");
		assertThat(this.switched).isEmpty();
	}

}
