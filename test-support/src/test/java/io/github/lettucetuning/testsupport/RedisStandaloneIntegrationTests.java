package io.github.lettucetuning.testsupport;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.FreePorts;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RespClient;
import io.github.lettucetuning.testsupport.server.RespErrorException;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Integration tests for {@link RedisStandaloneTest} and the {@link RedisNode} operations
 * on a password protected server.
 */
@RedisStandaloneTest(password = "s3cret", aclUsers = "app:app-pw")
class RedisStandaloneIntegrationTests {

	@RedisServer
	static RedisStandalone staticField;

	private static RedisStandalone fromBeforeAll;

	@RedisServer
	private RedisStandalone instanceField;

	private final RedisStandalone fromConstructor;

	private final RedisNode node;

	RedisStandaloneIntegrationTests(RedisStandalone redis) {
		this.fromConstructor = redis;
		this.node = redis.node();
	}

	@BeforeAll
	static void captureTopology(RedisStandalone redis) {
		fromBeforeAll = redis;
	}

	@AfterEach
	void cleanUp() {
		// The server is shared by the class: undo what a test changed
		Faults.resume(this.node);
		if (!this.node.isAlive()) {
			this.node.restart();
		}
		this.node.command("FLUSHALL");
	}

	@Test
	void everyInjectionPointGetsTheSameRunningServer(RedisStandalone fromParameter) {
		assertThat(fromParameter).isSameAs(this.fromConstructor)
			.isSameAs(staticField)
			.isSameAs(fromBeforeAll)
			.isSameAs(this.instanceField);
		assertThat(fromParameter.password()).isEqualTo("s3cret");
		assertThat(fromParameter.uri()).isEqualTo("redis://127.0.0.1:" + fromParameter.port());
		assertThat(FreePorts.isFree(fromParameter.port())).isFalse();
	}

	@Test
	void commandsAuthenticateWithThePassword() {
		assertThat(this.node.command("SET", "key", "value")).isEqualTo("OK");
		assertThat(this.node.commandAsString("GET", "key")).isEqualTo("value");
		assertThat(this.node.role()).isEqualTo("master");
		assertThat(this.node.info("server")).containsEntry("tcp_port", Integer.toString(this.node.port()));
	}

	@Test
	void clientsAreListedCountedAndKilledByName() {
		try (RespClient victim = appClient("victim"); RespClient bystander = appClient("bystander")) {
			assertThat(this.node.countClients("victim")).isEqualTo(1);
			assertThat(this.node.clientList()).anySatisfy((client) -> {
				assertThat(client.name()).isEqualTo("bystander");
				assertThat(client.addr()).isEqualTo("127.0.0.1:" + bystander.localPort());
			});
			assertThat(Faults.killClients(this.node, "victim")).isEqualTo(1);
			assertThat(this.node.countClients("victim")).isZero();
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> victim.command("PING"));
			assertThat(bystander.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void clientsAreKilledById() {
		try (RespClient victim = appClient("by-id")) {
			long id = (Long) victim.command("CLIENT", "ID");
			assertThat(Faults.killClients(this.node, Long.toString(id))).isEqualTo(1);
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> victim.command("PING"));
		}
	}

	@Test
	void pausedServerAnswersNothingUntilResumed() {
		try (RespClient client = appClient("paused")) {
			Faults.pause(this.node);
			assertThat(this.node.isPaused()).isTrue();
			client.readTimeout(Duration.ofMillis(300));
			assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> client.command("PING"))
				.withMessageContaining("SocketTimeoutException");
			Faults.resume(this.node);
			client.readTimeout(Duration.ofSeconds(5));
			// The PING sent while paused is answered first
			assertThat(client.readReply()).isEqualTo("PONG");
			assertThat(client.command("PING")).isEqualTo("PONG");
		}
	}

	@Test
	void killedServerRestartsOnTheSamePort() {
		int port = this.node.port();
		long pid = this.node.pid();
		this.node.command("SET", "before-kill", "1");
		Faults.kill(this.node);
		assertThat(this.node.isAlive()).isFalse();
		assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> this.node.command("PING"));

		this.node.restart();
		assertThat(this.node.port()).isEqualTo(port);
		assertThat(this.node.pid()).isNotEqualTo(pid);
		assertThat(this.node.command("PING")).isEqualTo("PONG");
		// Without persistence a restarted node is empty: proof that it is a new process
		assertThat(this.node.command("EXISTS", "before-kill")).isEqualTo(0L);
	}

	@Test
	void debugSleepStallsOtherClientsForTheSleptTime() throws Exception {
		try (RespClient client = appClient("sleep-watcher")) {
			CompletableFuture<Void> sleeping = Faults.debugSleep(this.node, Duration.ofMillis(1000));
			long start = System.nanoTime();
			assertThat(client.command("PING")).isEqualTo("PONG");
			Duration stalled = Duration.ofNanos(System.nanoTime() - start);
			assertThat(stalled).isBetween(Duration.ofMillis(700), Duration.ofMillis(3000));
			sleeping.get(5, TimeUnit.SECONDS);
		}
	}

	@Test
	void aclUserFromTheAnnotationCanLogIn() {
		try (RespClient client = RespClient.connect(this.node.host(), this.node.port())) {
			assertThatExceptionOfType(RespErrorException.class).isThrownBy(() -> client.command("AUTH", "app", "bad"))
				.satisfies((error) -> assertThat(error.errorCode()).isEqualTo("WRONGPASS"));
			assertThat(client.command("AUTH", "app", "app-pw")).isEqualTo("OK");
		}
	}

	private RespClient appClient(String name) {
		RespClient client = RespClient.connect(this.node.host(), this.node.port());
		client.command("AUTH", "app", "app-pw");
		client.command("CLIENT", "SETNAME", name);
		return client;
	}

	@Nested
	class WhenNested {

		@Test
		void nestedClassesShareTheEnclosingServer(RedisStandalone redis) {
			assertThat(redis).isSameAs(staticField);
			assertThat(redis.node().command("PING")).isEqualTo("PONG");
		}

	}

}
