package io.github.lettucetuning.resilience;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLHandshakeException;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
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

	private DefaultEndpoint endpoint;

	@BeforeEach
	void linkToAnEndpoint() {
		this.resources = DefaultClientResources.create();
		this.guard = new OutageGuard(new OutageOptions(true, Duration.ZERO, false, Duration.ofSeconds(2)));
		this.link = new ConnectionLink(this.guard);
		this.endpoint = new DefaultEndpoint(ClientOptions.create(), this.resources);
		this.link.attach(this.endpoint);
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

	@Test
	void lateDisconnectOfAStalledChannelWhileItsSuccessorIsUpFailsNothing() {
		EmbeddedChannel stalled = new EmbeddedChannel();
		this.link.connected(stalled);
		this.link.stalled(System.nanoTime(), "test stall");
		// Lettuce made the successor live; the guard's handler has not heard of it yet
		EmbeddedChannel successor = new EmbeddedChannel();
		this.link.connecting(successor, successor.remoteAddress());
		this.link.disconnected(stalled);
		AsyncCommand<String, String, String> command = newCommand();
		this.endpoint.write(command);
		assertThat(command.isDone()).as("the endpoint was not told the connection is unreachable").isFalse();
	}

	@Test
	void disconnectOfAChannelWhoseSuccessorIsNotConnectedYetStillCounts() {
		EmbeddedChannel stalled = new EmbeddedChannel();
		this.link.connected(stalled);
		this.link.stalled(System.nanoTime(), "test stall");
		EmbeddedChannel successor = new EmbeddedChannel();
		this.link.connecting(successor, successor.remoteAddress());
		successor.close();
		this.link.disconnected(stalled);
		AsyncCommand<String, String, String> command = newCommand();
		this.endpoint.write(command);
		assertThat(command).failsWithin(Duration.ZERO)
			.withThrowableThat()
			.havingRootCause()
			.isInstanceOf(RedisUnreachableException.class);
		assertThat(this.guard.outages()).hasSize(1);
	}

	@Test
	void failedTlsHandshakeIsReportedUntilATcpConnectFailsOrTheConnectionIsBack() {
		this.guard.sslBundle("redis");
		EmbeddedChannel first = new EmbeddedChannel();
		this.link.connected(first);
		this.link.disconnected(first);
		first.runScheduledPendingTasks();
		this.link.tlsFailed(new SSLHandshakeException("Received fatal alert: unknown_ca"));
		String refused = "the server refuses the client certificate of SSL bundle 'redis' "
				+ "(Received fatal alert: unknown_ca)";
		assertThat(this.guard.outages()).singleElement().extracting(OutageGuard.Outage::tls).isEqualTo(refused);
		AsyncCommand<String, String, String> command = newCommand();
		this.endpoint.write(command);
		assertThat(command).failsWithin(Duration.ZERO)
			.withThrowableThat()
			.havingRootCause()
			.withMessageStartingWith("DENIED by lettuce-tuning: the TLS handshake with Redis at ")
			.withMessageContaining(" fails: " + refused + "; the connection has been down for ")
			.withMessageNotContaining("unreachable");
		this.link.connectFailed();
		assertThat(this.guard.outages()).singleElement().extracting(OutageGuard.Outage::tls).isNull();
		AsyncCommand<String, String, String> next = newCommand();
		this.endpoint.write(next);
		assertThat(next).failsWithin(Duration.ZERO)
			.withThrowableThat()
			.havingRootCause()
			.withMessageContaining("has been unreachable for");
		this.link.tlsFailed(new RedisConnectionException("Connection closed prematurely"));
		assertThat(this.guard.outages()).singleElement().extracting(OutageGuard.Outage::tls).isNull();
		this.link.tlsFailed(new SSLHandshakeException("Received fatal alert: unknown_ca"));
		// A server that answers a handshake command got past TLS: its refusal is another.
		AsyncCommand<String, String, String> hello = newCommand();
		this.link.handshakeWritten(hello);
		hello.completeExceptionally(new RedisCommandExecutionException("WRONGPASS invalid username-password pair"));
		assertThat(this.guard.outages()).singleElement()
			.satisfies((outage) -> assertThat(outage.tls()).isNull())
			.satisfies((outage) -> assertThat(outage.rejection()).startsWith("refuses"));
		this.link.tlsFailed(new SSLHandshakeException("Received fatal alert: unknown_ca"));
		this.link.connected(new EmbeddedChannel());
		assertThat(this.guard.outages()).isEmpty();
		assertThat(this.link.tlsFailure()).isNull();
	}

	private static AsyncCommand<String, String, String> newCommand() {
		return new AsyncCommand<>(new Command<>(CommandType.GET, new StatusOutput<>(StringCodec.UTF8)));
	}

}
