package io.github.lettucetuning.testsupport.server;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import io.github.lettucetuning.testsupport.fault.Faults;

/**
 * Integration tests for {@link RedisServerLauncher} and {@link RedisNode} used without
 * the JUnit extension, the way the sample application uses them.
 */
class RedisServerLauncherIntegrationTests {

	private final RedisServerLauncher launcher = new RedisServerLauncher();

	@Test
	void startsAnswersAndStopsWithoutLeftovers() {
		RedisNode node = this.launcher.start(RedisServerConfig.defaults().withName("launcher"));
		long pid = node.pid();
		Path directory = node.directory();
		try {
			assertThat(node.isAlive()).isTrue();
			assertThat(node.uri()).isEqualTo("redis://127.0.0.1:" + node.port());
			assertThat(ProcessHandle.of(pid)).isPresent();
			assertThat(node.command("SET", "greeting", "hello")).isEqualTo("OK");
			assertThat(node.command("GET", "greeting")).isEqualTo("hello");
			assertThat(node.info("server")).containsEntry("process_id", Long.toString(pid))
				.containsEntry("tcp_port", Integer.toString(node.port()));
			assertThat(node.command("CONFIG", "GET", "save")).asList().containsExactly("save", "");
			assertThat(Files.exists(node.logFile())).isTrue();
			assertThat(pidFileOf(pid)).exists();
		}
		finally {
			node.stop();
		}
		assertThat(node.isAlive()).isFalse();
		assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
		assertThat(FreePorts.isFree(node.port())).isTrue();
		assertThat(directory).doesNotExist();
		assertThat(pidFileOf(pid)).doesNotExist();
	}

	@Test
	void startsTheServerTheSuiteRunsAgainst() {
		ServerKind kind = ServerKind.selected();
		ServerVersion version = ServerVersion.of(this.launcher.executable());
		assertThat(version.kind()).isEqualTo(kind);
		try (RedisNode node = this.launcher.start()) {
			// Redis sends no server_name; Valkey names itself and reports its own version
			assertThat(node.info("server").getOrDefault("server_name", "redis")).isEqualTo(kind.id());
			assertThat(node.info("server").get((kind == ServerKind.VALKEY) ? "valkey_version" : "redis_version"))
				.isEqualTo(version.version());
		}
	}

	@Test
	void stopIsIdempotentAndRestartAfterStopIsRefused() {
		RedisNode node = this.launcher.start();
		node.stop();
		node.stop();
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(node::restart);
	}

	@Test
	void passwordAndAclUsersAreEnforced() {
		RedisServerConfig config = RedisServerConfig.defaults().withPassword("s3cret").withAclUser("app", "app-pw");
		try (RedisNode node = this.launcher.start(config);
				RespClient anonymous = RespClient.connect(node.host(), node.port())) {
			assertThatExceptionOfType(RespErrorException.class).isThrownBy(() -> anonymous.command("PING"))
				.satisfies((error) -> assertThat(error.errorCode()).isEqualTo("NOAUTH"));
			assertThat(anonymous.command("AUTH", "app", "app-pw")).isEqualTo("OK");
			assertThat(anonymous.command("ACL", "WHOAMI")).isEqualTo("app");
			assertThat(node.command("ACL", "WHOAMI")).isEqualTo("default");
		}
	}

	@Test
	void startupFailureReportsTheLogTailAndLeavesNothingBehind() {
		RedisServerConfig broken = RedisServerConfig.defaults().withDirective("no-such-directive", "42");
		int runningBefore = RedisProcessRegistry.runningPids().size();
		assertThatExceptionOfType(RedisServerException.class).isThrownBy(() -> this.launcher.start(broken))
			.withMessageContaining("exited with code")
			.withMessageContaining("no-such-directive");
		assertThat(RedisProcessRegistry.runningPids()).hasSize(runningBefore);
	}

	@Test
	void missingExecutableFailsWithInstallHint() {
		String previous = System.getProperty(RedisExecutables.REDIS_SERVER_PROPERTY);
		System.setProperty(RedisExecutables.REDIS_SERVER_PROPERTY, "/nonexistent/bin/redis-server");
		try {
			assertThatExceptionOfType(RedisServerNotFoundException.class).isThrownBy(RedisServerLauncher::new)
				.withMessageContaining("redis-server was not found at '/nonexistent/bin/redis-server'")
				.withMessageContaining(RedisExecutables.REDIS_SERVER_PROPERTY)
				.withMessageContaining(ServerKind.selected().installHint());
		}
		finally {
			if (previous != null) {
				System.setProperty(RedisExecutables.REDIS_SERVER_PROPERTY, previous);
			}
			else {
				System.clearProperty(RedisExecutables.REDIS_SERVER_PROPERTY);
			}
		}
	}

	@Test
	void connectionsHonourTheReadTimeout() {
		try (RedisNode node = this.launcher.start()) {
			Faults.pause(node);
			long start = System.nanoTime();
			assertThatExceptionOfType(UncheckedIOException.class)
				.isThrownBy(() -> node.command(Duration.ofMillis(300), "PING"))
				.withMessageContaining("SocketTimeoutException");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
		}
	}

	private static Path pidFileOf(long pid) {
		return RedisProcessRegistry.workDirectory().resolve("pids").resolve(pid + ".pid");
	}

}
