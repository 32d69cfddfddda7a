package io.github.lettucetuning.state;

import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.ExecutionException;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.event.AskRedirectionEvent;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.event.MovedRedirectionEvent;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.event.DefaultEventBus;
import io.lettuce.core.event.cluster.AdaptiveRefreshTriggeredEvent;
import io.lettuce.core.event.connection.ReauthenticationEvent;
import io.lettuce.core.event.connection.ReauthenticationFailedEvent;
import io.lettuce.core.event.connection.ReconnectAttemptEvent;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

import org.springframework.dao.QueryTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClientEventRecorder}.
 */
class ClientEventRecorderTests {

	private static final Instant NOW = Instant.parse("2026-08-20T10:00:00Z");

	private static final InetSocketAddress LOCAL = new InetSocketAddress("127.0.0.1", 50000);

	private static final InetSocketAddress REMOTE = new InetSocketAddress("127.0.0.1", 6379);

	private final DefaultEventBus eventBus = new DefaultEventBus(Schedulers.immediate());

	private final ClientEventRecorder recorder = new ClientEventRecorder(this.eventBus,
			Clock.fixed(NOW, ZoneOffset.UTC));

	@AfterEach
	void close() {
		this.recorder.close();
	}

	@Test
	void countsReconnectAttemptsAndFailures() {
		this.eventBus.publish(new ReconnectAttemptEvent("redis://127.0.0.1", "1", LOCAL, REMOTE, 1, Duration.ZERO));
		this.eventBus.publish(new ReconnectAttemptEvent("redis://127.0.0.1", "1", LOCAL, REMOTE, 2, Duration.ZERO));
		this.eventBus.publish(new ReconnectFailedEvent("redis://127.0.0.1", "1", LOCAL, REMOTE,
				new RedisConnectionException("refused"), 1));
		assertThat(this.recorder.reconnectAttempts()).isEqualTo(2);
		assertThat(this.recorder.reconnectFailures()).isOne();
	}

	@Test
	void countsReauthenticationsByOutcomeWithTheirTimes() {
		assertThat(this.recorder.lastReauthentication()).isNull();
		this.eventBus.publish(new ReauthenticationEvent("1"));
		this.eventBus.publish(new ReauthenticationEvent("2"));
		this.eventBus.publish(new ReauthenticationFailedEvent("3", new RedisConnectionException("WRONGPASS")));
		assertThat(this.recorder.reauthentications()).isEqualTo(2);
		assertThat(this.recorder.reauthenticationFailures()).isOne();
		assertThat(this.recorder.lastReauthentication()).isEqualTo(NOW);
		assertThat(this.recorder.lastReauthenticationFailure()).isEqualTo(NOW);
	}

	@Test
	void countsRedirectionsByTypeWithoutKeepingKeys() {
		this.eventBus.publish(new MovedRedirectionEvent("GET", "user:secret", 42, "MOVED 42 127.0.0.1:7001"));
		this.eventBus.publish(new MovedRedirectionEvent("GET", "user:secret", 42, "MOVED 42 127.0.0.1:7001"));
		this.eventBus.publish(new AskRedirectionEvent("GET", "user:secret", 42, "ASK 42 127.0.0.1:7002"));
		assertThat(this.recorder.movedRedirections()).isEqualTo(2);
		assertThat(this.recorder.askRedirections()).isOne();
	}

	@Test
	void recordsTopologyChangesAndTheLastOne() {
		this.eventBus.publish(new ClusterTopologyChangedEvent(List.of(Nodes.master("a", 7000, 0, 100)),
				List.of(Nodes.replica("a", 7000, "b"), Nodes.master("b", 7001, 0, 100))));
		assertThat(this.recorder.topologyChanges()).isOne();
		TopologyChange change = this.recorder.lastTopologyChange();
		assertThat(change).isNotNull();
		assertThat(change.at()).isEqualTo(NOW);
		assertThat(change.added()).containsExactly("127.0.0.1:7001");
		assertThat(change.changed()).contains("127.0.0.1:7000 became replica");
	}

	@Test
	void countsAdaptiveRefreshTriggers() {
		this.eventBus.publish(new AdaptiveRefreshTriggeredEvent(Partitions::new, () -> {
		}, RefreshTrigger.MOVED_REDIRECT));
		assertThat(this.recorder.refreshTriggers(RefreshTrigger.MOVED_REDIRECT)).isOne();
		assertThat(this.recorder.refreshTriggers(RefreshTrigger.ASK_REDIRECT)).isZero();
	}

	@Test
	void countsCommandTimeoutsAmongCauses() {
		this.recorder.recordCommandException(new RedisCommandTimeoutException("Command timed out after 1 second(s)"));
		this.recorder.recordCommandException(new QueryTimeoutException("Redis command timed out",
				new ExecutionException(new RedisCommandTimeoutException("timed out"))));
		this.recorder.recordCommandException(new RedisConnectionException("refused"));
		assertThat(this.recorder.commandTimeouts()).isEqualTo(2);
	}

	@Test
	void stopsCountingWhenClosed() {
		this.recorder.close();
		this.eventBus.publish(new ReconnectAttemptEvent("redis://127.0.0.1", "1", LOCAL, REMOTE, 1, Duration.ZERO));
		assertThat(this.recorder.reconnectAttempts()).isZero();
	}

}
