package io.github.lettucetuning.testsupport.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Integration tests for the pid-file sweep that cleans up after a JVM killed with
 * SIGKILL, which runs no shutdown hook.
 */
class OrphanedProcessIntegrationTests {

	@Test
	void nodeOfAJvmKilledWithSigkillIsSweptByTheNextJvm() throws Exception {
		// First use sweeps on its own: get that out of the way so the explicit sweep
		// counts
		RedisProcessRegistry.sweepStaleProcesses();
		Process childJvm = startChildJvm();
		try {
			String[] orphan = awaitMarkerLine(childJvm).split(" ");
			long pid = Long.parseLong(orphan[1]);
			int port = Integer.parseInt(orphan[2]);
			Path directory = Path.of(orphan[3]);
			childJvm.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("orphaned redis-server").isPresent();
			assertThat(RedisProcessRegistry.isOurNode(pid, directory)).isTrue();

			assertThat(RedisProcessRegistry.sweepStaleProcesses()).isGreaterThanOrEqualTo(1);

			assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
			assertThat(FreePorts.isFree(port)).isTrue();
			assertThat(directory).doesNotExist();
			assertThat(RedisProcessRegistry.workDirectory().resolve("pids").resolve(pid + ".pid")).doesNotExist();
		}
		finally {
			childJvm.destroyForcibly();
		}
	}

	@Test
	void shutdownHookStopsTheNodesOfATerminatedJvm() throws Exception {
		Process childJvm = startChildJvm();
		try {
			String[] orphan = awaitMarkerLine(childJvm).split(" ");
			long pid = Long.parseLong(orphan[1]);
			Path directory = Path.of(orphan[3]);
			// SIGTERM, like a CI job being cancelled: the JVM runs its shutdown hooks
			childJvm.destroy();
			assertThat(childJvm.waitFor(20, TimeUnit.SECONDS)).isTrue();
			assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
			assertThat(directory).doesNotExist();
			assertThat(RedisProcessRegistry.workDirectory().resolve("pids").resolve(pid + ".pid")).doesNotExist();
		}
		finally {
			childJvm.destroyForcibly();
		}
	}

	@Test
	void unrelatedProcessesAreNeverRecognisedAsOurs() {
		long self = ProcessHandle.current().pid();
		assertThat(RedisProcessRegistry.isOurNode(self, RedisProcessRegistry.workDirectory().resolve("nodes/x")))
			.isFalse();
	}

	private static Process startChildJvm() throws IOException {
		return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
				System.getProperty("java.class.path"),
				"-D" + RedisProcessRegistry.WORK_DIRECTORY_PROPERTY + "=" + RedisProcessRegistry.workDirectory(),
				OrphanMaker.class.getName())
			.redirectErrorStream(true)
			.start();
	}

	private static String awaitMarkerLine(Process childJvm) throws Exception {
		CompletableFuture<String> marker = CompletableFuture.supplyAsync(() -> readMarkerLine(childJvm));
		return marker.get(Duration.ofSeconds(60).toSeconds(), TimeUnit.SECONDS);
	}

	private static String readMarkerLine(Process childJvm) {
		StringBuilder output = new StringBuilder();
		try {
			BufferedReader reader = new BufferedReader(
					new InputStreamReader(childJvm.getInputStream(), StandardCharsets.UTF_8));
			for (String line = reader.readLine(); line != null; line = reader.readLine()) {
				if (line.startsWith(OrphanMaker.MARKER + " ")) {
					return line;
				}
				output.append(line).append('\n');
			}
		}
		catch (IOException ex) {
			output.append(ex);
		}
		throw new IllegalStateException("Child JVM ended without starting a node:\n" + output);
	}

}
