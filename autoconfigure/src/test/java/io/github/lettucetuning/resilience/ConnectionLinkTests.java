package io.github.lettucetuning.resilience;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.protocol.DefaultEndpoint;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ConnectionLink}: which channel events make a connection unreachable.
 */
class ConnectionLinkTests {

	private ClientResources resources;

	private OutageGuard guard;

	private ConnectionLink link;

	@BeforeEach
	void linkToAnEndpoint() {
		this.resources = DefaultClientResources.create();
		this.guard = new OutageGuard(new OutageOptions(true, Duration.ZERO, false, Duration.ofSeconds(2)));
		this.link = new ConnectionLink(this.guard);
		this.link.attach(new DefaultEndpoint(ClientOptions.create(), this.resources));
	}

	@AfterEach
	void shutdown() {
		this.resources.shutdown(0, 0, TimeUnit.MILLISECONDS);
	}

	@Test
	void disconnectOfTheCurrentChannelMakesTheConnectionUnreachableAfterTheGrace() {
		EmbeddedChannel channel = new EmbeddedChannel();
		this.link.connected(channel);
		this.link.disconnected(channel);
		channel.runScheduledPendingTasks();
		assertThat(this.link.isUnreachable()).isTrue();
		assertThat(this.guard.outages()).singleElement().extracting(OutageGuard.Outage::server).isNotNull();
	}

	@Test
	void lateDisconnectOfAReplacedChannelLeavesTheLiveConnectionAlone() {
		EmbeddedChannel replaced = new EmbeddedChannel();
		EmbeddedChannel current = new EmbeddedChannel();
		this.link.connected(replaced);
		this.link.connected(current);
		this.link.disconnected(replaced);
		replaced.runScheduledPendingTasks();
		current.runScheduledPendingTasks();
		assertThat(this.link.isUnreachable()).isFalse();
		assertThat(this.guard.outages()).isEmpty();
	}

	@Test
	void reconnectEndsTheOutage() {
		EmbeddedChannel first = new EmbeddedChannel();
		this.link.connected(first);
		this.link.disconnected(first);
		first.runScheduledPendingTasks();
		this.link.connected(new EmbeddedChannel());
		assertThat(this.link.isUnreachable()).isFalse();
		assertThat(this.guard.outages()).isEmpty();
	}

}
