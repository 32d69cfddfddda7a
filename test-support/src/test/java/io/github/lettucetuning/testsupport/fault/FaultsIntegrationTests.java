package io.github.lettucetuning.testsupport.fault;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RespClient;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Integration tests for {@link Faults} and {@link NetworkBlackhole}.
 */
@RedisStandaloneTest
class FaultsIntegrationTests {

	private final RedisNode node;

	FaultsIntegrationTests(RedisStandalone redis) {
		this.node = redis.node();
	}

	@AfterEach
	void cleanUp() {
		Faults.resume(this.node);
		if (!this.node.isAlive()) {
			this.node.restart();
		}
	}

	@Test
	void pauseHealsWhenClosed() {
		try (RespClient client = client()) {
			try (Fault pause = Faults.pause(this.node)) {
				assertThat(this.node.isPaused()).isTrue();
				assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> client.command("PING"));
			}
			assertThat(this.node.isPaused()).isFalse();
			assertThat(this.node.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void killHealsByRestartingOnTheSamePort() {
		long pid = this.node.pid();
		Fault kill = Faults.kill(this.node);
		assertThat(this.node.isAlive()).isFalse();
		kill.heal();
		kill.heal();
		assertThat(this.node.isAlive()).isTrue();
		assertThat(this.node.pid()).isNotEqualTo(pid);
		assertThat(this.node.command("PING")).isEqualTo("PONG");
	}

	@Test
	void clientsAreKilledByName() {
		try (RespClient first = client(); RespClient second = client()) {
			first.command("CLIENT", "SETNAME", "app-pool");
			second.command("CLIENT", "SETNAME", "app-pool");
			assertThat(Faults.killClients(this.node, "app-pool")).isEqualTo(2);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> first.command("PING"));
			assertThat(this.node.countClients("app-pool")).isZero();
		}
	}

	@Test
	void debugSleepBlocksTheServer() throws Exception {
		try (RespClient client = client()) {
			CompletableFuture<Void> sleeping = Faults.debugSleep(this.node, Duration.ofMillis(600));
			client.readTimeout(Duration.ofMillis(200));
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> client.command("PING"));
			sleeping.get(5, TimeUnit.SECONDS);
		}
	}

	@Test
	void availabilityAlwaysExplainsItself() {
		NetworkBlackhole.Availability availability = NetworkBlackhole.availability();
		assertThat(availability.reason()).isNotBlank();
		if (!availability.available()) {
			assertThatIllegalStateException().isThrownBy(() -> Faults.blackhole(this.node))
				.withMessageContaining(availability.reason());
		}
	}

	@Test
	void blackholeDropsTrafficUntilHealed() {
		NetworkBlackhole.Availability availability = NetworkBlackhole.availability();
		assumeTrue(availability.available(), availability.reason());
		try (NetworkBlackhole blackhole = Faults.blackhole(this.node)) {
			assertThat(blackhole.isActive()).isTrue();
			assertTrafficDropped();
			assertThatIllegalStateException().isThrownBy(() -> NetworkBlackhole.drop(this.node.port()));
		}
		assertThat(this.node.command("PING")).isEqualTo("PONG");
		assertThat(firewallRules()).doesNotContain(Integer.toString(this.node.port()));
	}

	@Test
	void nftBackendDropsTrafficToo() {
		Firewall nft = new NftablesFirewall();
		NetworkBlackhole.Availability availability = NetworkBlackhole.availability();
		assumeTrue(availability.available(), availability.reason());
		assumeTrue(nft.unavailableReason() == null, () -> String.valueOf(nft.unavailableReason()));
		try (NetworkBlackhole blackhole = NetworkBlackhole.drop(this.node.port(), nft)) {
			assertThat(blackhole.backend()).isEqualTo("nft");
			assertTrafficDropped();
		}
		assertThat(this.node.command("PING")).isEqualTo("PONG");
	}

	private void assertTrafficDropped() {
		// A dropped SYN is a connect timeout, not a refusal: the client cannot tell a
		// dead link
		assertThatExceptionOfType(UncheckedIOException.class)
			.isThrownBy(() -> RespClient.connect(this.node.host(), this.node.port(), Duration.ofMillis(300),
					Duration.ofMillis(300)))
			.withMessageContaining("timed out");
	}

	private RespClient client() {
		return RespClient.connect(this.node.host(), this.node.port(), Duration.ofSeconds(1), Duration.ofMillis(500));
	}

	private static String firewallRules() {
		return CommandRunner.find("iptables")
			.map((iptables) -> CommandRunner.run(List.of(iptables.toString(), "-w", "-S"), null).output())
			.orElse("");
	}

}
