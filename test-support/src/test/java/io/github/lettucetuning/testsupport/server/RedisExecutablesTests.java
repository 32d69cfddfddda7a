package io.github.lettucetuning.testsupport.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RedisExecutables}.
 */
class RedisExecutablesTests {

	@Test
	void missingFromPathFailsWithInstallHint(@TempDir Path empty) {
		assertThatExceptionOfType(RedisServerNotFoundException.class)
			.isThrownBy(
					() -> RedisExecutables.locate("redis-server", "lettuce.tuning.unset-property", empty.toString()))
			.withMessage("redis-server was not found on the PATH. Install it: 'apt-get install -y redis-server' "
					+ "(Debian/Ubuntu) or 'brew install redis' (macOS).");
	}

	@Test
	void missingExplicitExecutableFailsWithInstallHint() {
		assertThatExceptionOfType(RedisServerNotFoundException.class)
			.isThrownBy(() -> new RedisServerLauncher(Path.of("/nonexistent/redis-server")))
			.withMessageContaining("redis-server was not found at '/nonexistent/redis-server'")
			.withMessageContaining("apt-get install -y redis-server")
			.withMessageContaining("brew install redis");
	}

	@Test
	void findsExecutablesOnThePath(@TempDir Path directory) throws IOException {
		Path fake = Files.createFile(directory.resolve("redis-server"),
				PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
		Files.createFile(directory.resolve("not-executable"));
		String path = "/nonexistent-dir:" + directory;
		assertThat(RedisExecutables.findOnPath("redis-server", path)).contains(fake);
		assertThat(RedisExecutables.findOnPath("not-executable", path)).isEmpty();
		assertThat(RedisExecutables.findOnPath("redis-server", null)).isEmpty();
	}

	@Test
	void withoutTheSwitchTheRedisServerOnThePathIsUsedWhateverItIs(@TempDir Path directory) throws IOException {
		Path redisServer = fakeServer(directory, "redis-server", "Valkey server v=8.0.1 sha=00000000:1 bits=64");
		assertThat(RedisExecutables.redisServer(ServerKind.REDIS, directory.toString())).isEqualTo(redisServer);
	}

	@Test
	void valkeyIsFoundAsValkeyServerFirst(@TempDir Path directory) throws IOException {
		Path valkeyServer = fakeServer(directory, "valkey-server", "Valkey server v=8.0.1 sha=00000000:1 bits=64");
		fakeServer(directory, "redis-server", "Redis server v=7.0.15 sha=00000000:0 bits=64");
		assertThat(RedisExecutables.redisServer(ServerKind.VALKEY, directory.toString())).isEqualTo(valkeyServer);
	}

	@Test
	void valkeyIsFoundAsARedisServerThatIsValkey(@TempDir Path first, @TempDir Path second) throws IOException {
		fakeServer(first, "redis-server", "Redis server v=7.0.15 sha=00000000:0 bits=64");
		Path compatibilityLink = fakeServer(second, "redis-server", "Valkey server v=8.1.0 sha=00000000:0 bits=64");
		assertThat(RedisExecutables.redisServer(ServerKind.VALKEY, first + ":" + second)).isEqualTo(compatibilityLink);
	}

	@Test
	void valkeyMissingIsAnErrorNamingTheRedisFound(@TempDir Path directory) throws IOException {
		Path redisServer = fakeServer(directory, "redis-server", "Redis server v=7.0.15 sha=00000000:0 bits=64");
		assertThatExceptionOfType(RedisServerNotFoundException.class)
			.isThrownBy(() -> RedisExecutables.redisServer(ServerKind.VALKEY, directory.toString()))
			.withMessageStartingWith("valkey-server was not found on the PATH, and lettuce.tuning.server/"
					+ "LETTUCE_TUNING_SERVER asks for valkey (" + redisServer + " is redis 7.0.15)")
			.withMessageContaining("build it from source");
	}

	@Test
	void aConfiguredServerOfTheWrongKindIsAnError(@TempDir Path directory) throws IOException {
		Path redisServer = fakeServer(directory, "redis-server", "Redis server v=7.0.15 sha=00000000:0 bits=64");
		assertThatExceptionOfType(RedisServerNotFoundException.class)
			.isThrownBy(() -> RedisExecutables.requireKind(ServerKind.VALKEY, redisServer, "a test"))
			.withMessageStartingWith("'" + redisServer + "' (configured by a test) is redis 7.0.15, but "
					+ "lettuce.tuning.server/LETTUCE_TUNING_SERVER asks for valkey.");
	}

	@Test
	void theSwitchNamesAKnownServer() {
		assertThat(ServerKind.of("valkey", "a test")).isEqualTo(ServerKind.VALKEY);
		assertThat(ServerKind.of(" Redis ", "a test")).isEqualTo(ServerKind.REDIS);
		assertThatIllegalArgumentException().isThrownBy(() -> ServerKind.of("keydb", "environment variable 'X'"))
			.withMessage("Unknown server 'keydb' in environment variable 'X'; use one of redis, valkey, "
					+ "or leave it unset for redis.");
	}

	@Test
	void versionLinesOfRedisAndValkey() {
		Path executable = Path.of("server");
		assertThat(ServerVersion.parse(
				"Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0\n",
				executable))
			.isEqualTo(new ServerVersion("redis", "7.0.15"));
		assertThat(ServerVersion.parse(
				"Valkey server v=8.0.1 sha=00000000:1 malloc=jemalloc-5.3.0 bits=64 build=ac34b661fc70e795\n",
				executable))
			.isEqualTo(new ServerVersion("valkey", "8.0.1"));
		assertThatExceptionOfType(RedisServerException.class)
			.isThrownBy(() -> ServerVersion.parse("usage: server [options]", executable))
			.withMessageContaining("printed 'usage: server [options]'");
	}

	private static Path fakeServer(Path directory, String name, String versionLine) throws IOException {
		Path script = Files.createFile(directory.resolve(name),
				PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
		Files.writeString(script, "#!/bin/sh\necho '" + versionLine + "'\n");
		return script;
	}

}
