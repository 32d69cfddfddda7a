package io.github.lettucetuning.resilience;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.fault.NetworkBlackhole;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A subscriber whose server restarted while the network dropped its packets: the reset
 * that would have closed its connection never arrived, and a subscriber sends nothing
 * that would draw another, so it heard nothing until TCP keep-alive gave up (13 s idle,
 * then probes). The fault campaign (standalone, seed 1126, 150 to 171 s: a kill between
 * two blackholes) found listeners that received none of the messages published after the
 * server was back, until the dead server's FIN, retransmitted with backoff, got through.
 * Here the dead server's sockets are destroyed, as a reboot would, so only the client can
 * find out. Now, once another connection to the server is back, the starter pings each
 * subscriber that heard nothing since the outage began.
 */
@RedisStandaloneTest
@Timeout(90)
class HalfOpenSubscriptionIntegrationTests {

	// Lettuce's keep-alive needs 13 s of silence before its first probe: well past this
	private static final Duration DELIVERY_BOUND = Duration.ofSeconds(5);

	// Long enough for a new redis-server to listen
	private static final Duration RESTART = Duration.ofSeconds(1);

	private final RedisStandalone redis;

	HalfOpenSubscriptionIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@AfterEach
	void restore() {
		Faults.recover(this.redis.node());
	}

	@Test
	void aSubscriberLeftHalfOpenByARestartBehindAPartitionHearsTheServerOnceItIsBack() {
		NetworkBlackhole.assumeAvailable();
		assumeSocketsCanBeDestroyed();
		app().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			BlockingQueue<String> received = new LinkedBlockingQueue<>();
			context.getBean(RedisMessageListenerContainer.class)
				.addMessageListener(
						(message, pattern) -> received.add(new String(message.getBody(), StandardCharsets.UTF_8)),
						new ChannelTopic("news"));
			assertThat(deliveredWithin(received, "before", Duration.ofSeconds(5))).as("subscribed").isTrue();

			NetworkBlackhole blackhole = Faults.blackhole(this.redis.node());
			CompletableFuture<Void> restarted;
			try {
				Faults.kill(this.redis.node());
				forgetConnections();
				// The restart waits for a PING, which the blackhole drops until it heals
				restarted = CompletableFuture.runAsync(this.redis.node()::restart);
				Thread.sleep(RESTART.toMillis());
			}
			finally {
				blackhole.heal();
			}
			restarted.get(15, TimeUnit.SECONDS);
			// The data connection learns of the restart from the reset its next command
			// gets
			assertThat(answers(template)).as("the data connection back").isTrue();

			assertThat(deliveredWithin(received, "after", DELIVERY_BOUND))
				.as("a message published after the server was back, within %s", DELIVERY_BOUND)
				.isTrue();
		});
	}

	private static void assumeSocketsCanBeDestroyed() {
		boolean found = Stream.of(System.getenv("PATH").split(File.pathSeparator))
			.anyMatch((directory) -> Files.isExecutable(Path.of(directory, "ss")));
		if (!found && "true".equalsIgnoreCase(System.getenv("CI"))) {
			throw new AssertionError("ss (iproute2) must be installed in CI (CI=true): make test installs it");
		}
		Assumptions.assumeTrue(found, "Skipping: ss (iproute2) is not installed");
	}

	// The killed server's kernel still holds its connections and would send their FIN
	// again once the blackhole heals. Destroyed, as by a reboot, their resets are dropped
	// and the client's side is left half-open.
	private void forgetConnections() throws Exception {
		Process ss = new ProcessBuilder("ss", "-K", "-tn", "sport", "=", ":" + this.redis.port())
			.redirectErrorStream(true)
			.start();
		assertThat(ss.waitFor(10, TimeUnit.SECONDS)).as("ss -K finished").isTrue();
		assertThat(ss.exitValue()).as("ss -K: %s", new String(ss.getInputStream().readAllBytes())).isZero();
	}

	private static boolean answers(StringRedisTemplate template) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (System.nanoTime() - deadline < 0) {
			try {
				template.opsForValue().set("probe", "1");
				return true;
			}
			catch (DataAccessException ex) {
				Thread.sleep(50);
			}
		}
		return false;
	}

	// Publishes until the listener receives: a message sent before the subscription is
	// restored is lost, as for any subscriber
	private boolean deliveredWithin(BlockingQueue<String> received, String message, Duration bound)
			throws InterruptedException {
		long deadline = System.nanoTime() + bound.toNanos();
		while (System.nanoTime() - deadline < 0) {
			this.redis.node().command("PUBLISH", "news", message);
			String next = received.poll(100, TimeUnit.MILLISECONDS);
			if (message.equals(next)) {
				return true;
			}
		}
		return false;
	}

	private ApplicationContextRunner app() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port())
			.withUserConfiguration(ListenerContainerConfiguration.class);
	}

}
