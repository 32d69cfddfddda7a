package io.github.lettucetuning.testsupport.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

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

}
