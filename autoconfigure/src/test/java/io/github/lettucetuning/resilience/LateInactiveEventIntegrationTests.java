package io.github.lettucetuning.resilience;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ordering issue 28 asks about: the old channel's inactive event reaches the guard
 * after Lettuce has already made the new channel live. The ordering is driven by a
 * handler that sits in front of the guard's and holds the old channel's inactive event
 * until the new channel's active event passes it, that is after Lettuce's command handler
 * has activated the endpoint on the new channel and before the guard hears of it. The
 * commands that must not fail are real commands on the real connection afterwards.
 */
@RedisStandaloneTest
@Timeout(60)
class LateInactiveEventIntegrationTests {

	private static final Duration STALL_TIMEOUT = Duration.ofMillis(500);

	// Long enough that a restart of the server fits within it on a loaded machine
	private static final Duration GRACE = Duration.ofSeconds(5);

	private final RedisStandalone redis;

	private ClientResources resources;

	private RedisClient client;

	private OutageGuard guard;

	private final HoldInactive hold = new HoldInactive();

	LateInactiveEventIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void connect() {
		this.guard = new OutageGuard(new OutageOptions(true, GRACE, true, STALL_TIMEOUT));
		NettyCustomizer holder = new NettyCustomizer() {
			@Override
			public void afterChannelInitialized(Channel channel) {
				channel.pipeline().addLast(LateInactiveEventIntegrationTests.this.hold.handler());
			}
		};
		// The holder first: addLast puts its handler in front of the guard's
		this.resources = DefaultClientResources.builder()
			.nettyCustomizer(CompositeNettyCustomizer.of(List.of(holder, this.guard)))
			.build();
		this.client = RedisClient.create(this.resources, RedisURI.create(this.redis.node().uri()));
		this.client.setOptions(ClientOptions.builder()
			.timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(10)))
			.socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(10)).build())
			.build());
	}

	@AfterEach
	void close() {
		Faults.recover(this.redis.node());
		this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		this.resources.shutdown(0, 2, TimeUnit.SECONDS);
	}

	@Test
	void aStalledChannelsLateInactiveEventLeavesTheLiveConnectionAlone() throws Exception {
		try (StatefulRedisConnection<String, String> connection = this.client.connect()) {
			RedisAsyncCommands<String, String> async = connection.async();
			assertThat(async.set("before", "1").get(5, TimeUnit.SECONDS)).isEqualTo("OK");
			Channel first = this.hold.armOnNextInactive();
			// A frozen server: the guard fails the waiting GET after the stall timeout
			// and
			// closes the channel; Lettuce reconnects, and the handshake waits until the
			// server runs again
			Faults.pause(this.redis.node());
			RedisFuture<String> waiting = async.get("before");
			assertThat(waiting.toCompletableFuture()).failsWithin(Duration.ofSeconds(5))
				.withThrowableThat()
				.havingRootCause()
				.isInstanceOf(RedisStalledException.class);
			assertThat(this.hold.held.await(5, TimeUnit.SECONDS)).as("old channel's inactive event held").isTrue();
			Faults.resume(this.redis.node());
			assertThat(this.hold.released.await(15, TimeUnit.SECONDS))
				.as("old channel's inactive event released as the new channel became active")
				.isTrue();
			assertThat(this.hold.releasedOn.get()).isNotSameAs(first);
			// Plain, pipelined and queued commands on the live connection must all
			// succeed
			assertThat(async.set("after", "2").get(5, TimeUnit.SECONDS)).isEqualTo("OK");
			connection.setAutoFlushCommands(false);
			RedisFuture<String> pipelinedSet = async.set("pipelined", "3");
			RedisFuture<String> pipelinedGet = async.get("after");
			connection.flushCommands();
			connection.setAutoFlushCommands(true);
			assertThat(pipelinedSet.toCompletableFuture()).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("OK");
			assertThat(pipelinedGet.toCompletableFuture()).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("2");
			assertThat(this.guard.outages()).isEmpty();
			assertThat(this.redis.node().commandAsString("GET", "pipelined")).isEqualTo("3");
			// The next outage still gets its grace: the connection's state is its own,
			// not the stale channel's
			Faults.kill(this.redis.node());
			RedisFuture<String> duringGrace = async.set("during-grace", "4");
			Thread.sleep(300);
			assertThat(duringGrace.isDone()).as("a command within the grace waits for the reconnect").isFalse();
			this.redis.node().restart();
			assertThat(duringGrace.toCompletableFuture()).succeedsWithin(Duration.ofSeconds(5)).isEqualTo("OK");
		}
	}

	/**
	 * Holds the inactive event of one channel until another channel of the same client
	 * becomes active, then passes it on before that channel's active event goes on.
	 */
	static final class HoldInactive {

		private final AtomicBoolean armed = new AtomicBoolean();

		private final AtomicReference<Channel> current = new AtomicReference<>();

		private final AtomicReference<ChannelHandlerContext> heldContext = new AtomicReference<>();

		private final AtomicReference<Channel> releasedOn = new AtomicReference<>();

		final CountDownLatch held = new CountDownLatch(1);

		final CountDownLatch released = new CountDownLatch(1);

		Channel armOnNextInactive() {
			this.armed.set(true);
			return this.current.get();
		}

		ChannelDuplexHandler handler() {
			return new ChannelDuplexHandler() {

				@Override
				public void channelActive(ChannelHandlerContext ctx) throws Exception {
					ChannelHandlerContext old = HoldInactive.this.heldContext.getAndSet(null);
					if (old != null) {
						// Netty empties a closed channel's pipeline once it deregisters,
						// so
						// the held event goes to the guard's handler itself. It runs on
						// the
						// old channel's loop; this loop waits for it, so that it reaches
						// the
						// guard before this channel's active event does.
						ChannelInboundHandler guardHandler = (ChannelInboundHandler) old.handler();
						Callable<Void> inactive = () -> {
							guardHandler.channelInactive(old);
							return null;
						};
						if (old.executor().inEventLoop()) {
							inactive.call();
						}
						else {
							old.executor().submit(inactive).get(5, TimeUnit.SECONDS);
						}
						HoldInactive.this.releasedOn.set(ctx.channel());
						HoldInactive.this.released.countDown();
					}
					HoldInactive.this.current.set(ctx.channel());
					super.channelActive(ctx);
				}

				@Override
				public void channelInactive(ChannelHandlerContext ctx) throws Exception {
					if (ctx.channel() == HoldInactive.this.current.get()
							&& HoldInactive.this.armed.compareAndSet(true, false)) {
						HoldInactive.this.heldContext.set(ctx.pipeline().context(OutageGuard.HANDLER_NAME));
						HoldInactive.this.held.countDown();
						return;
					}
					super.channelInactive(ctx);
				}

			};
		}

	}

}
