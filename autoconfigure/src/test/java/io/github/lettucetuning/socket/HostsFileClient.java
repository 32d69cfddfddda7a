package io.github.lettucetuning.socket;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.testsupport.server.RedisNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@link DnsMoveClient} in a JVM of its own, which resolves {@value DnsMoveClient#HOST}
 * through a hosts file that the test rewrites ({@code jdk.net.hosts.file}), so that the
 * endpoint's name can be moved from one server to another as a cloud failover moves it.
 */
public final class HostsFileClient implements AutoCloseable {

	/**
	 * The host name the client connects to.
	 */
	public static final String HOST = DnsMoveClient.HOST;

	private static final Duration CLIENT_START = Duration.ofSeconds(90);

	private final Path directory;

	private final Path hostsFile;

	private final Path log;

	private Process client;

	private long startedAt;

	private int phase;

	/**
	 * Create a client whose files go to the given directory; the name resolves to nothing
	 * until {@link #pointAt(RedisNode)}.
	 * @param directory a directory of the test's own
	 * @throws IOException if the hosts file cannot be written
	 */
	public HostsFileClient(Path directory) throws IOException {
		this.directory = directory;
		this.hostsFile = directory.resolve("hosts");
		this.log = directory.resolve("client.log");
		pointNowhere();
	}

	/**
	 * Make the name resolve to a server (as seen by the client once its resolver reads
	 * the file again).
	 * @param server the server
	 * @throws IOException if the file cannot be written
	 */
	public void pointAt(RedisNode server) throws IOException {
		write(server.host() + " " + HOST + "\n");
	}

	/**
	 * Make the name resolve to nothing.
	 * @throws IOException if the file cannot be written
	 */
	public void pointNowhere() throws IOException {
		write("127.0.0.1 localhost\n");
	}

	private void write(String content) throws IOException {
		// Written whole and moved into place, so that no reader sees half a file
		Path next = this.directory.resolve("hosts.next");
		Files.writeString(next, content, StandardCharsets.US_ASCII);
		Files.move(next, this.hostsFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
	}

	/**
	 * Start the client.
	 * @param setup {@code starter}, {@code stock} or {@code stock-jdk-resolver}
	 * @param port the port of the servers
	 * @param keyPrefix the prefix of the keys it writes
	 * @throws IOException if the JVM cannot be started
	 */
	public void start(String setup, int port, String keyPrefix) throws IOException {
		Path java = Path.of(System.getProperty("java.home"), "bin", "java");
		ProcessBuilder builder = new ProcessBuilder(java.toString(), "-Xmx256m",
				"-Djdk.net.hosts.file=" + this.hostsFile, "-cp", System.getProperty("java.class.path"),
				DnsMoveClient.class.getName(), setup, Integer.toString(port),
				this.directory.resolve("result").toString(), keyPrefix)
			.redirectErrorStream(true)
			.redirectOutput(this.log.toFile());
		this.startedAt = System.nanoTime();
		this.client = builder.start();
	}

	/**
	 * Return when the client JVM was started.
	 * @return the start, in {@code System.nanoTime()}
	 */
	public long startedAt() {
		return this.startedAt;
	}

	/**
	 * Wait until the client's context is up and its writers run.
	 */
	public void awaitWriting() {
		await().atMost(CLIENT_START)
			.pollInterval(Duration.ofMillis(100))
			.failFast("client exited: " + logTail(), () -> !this.client.isAlive())
			.until(() -> Files.readString(this.log).contains("dns-move-client: writing"));
	}

	/**
	 * Wait until a server holds keys.
	 * @param server the server
	 * @param atMost how long to wait
	 * @return when the keys were seen, in {@code System.nanoTime()}
	 */
	public long awaitWritesOn(RedisNode server, Duration atMost) {
		await().atMost(atMost)
			.pollInterval(Duration.ofMillis(50))
			.failFast("client exited: " + logTail(), () -> !this.client.isAlive())
			.until(() -> dbSize(server) > 0);
		return System.nanoTime();
	}

	/**
	 * Return how many keys a server holds, 0 if it does not answer.
	 * @param server the server
	 * @return the number of keys
	 */
	public static long dbSize(RedisNode server) {
		try {
			return Long.parseLong(String.valueOf(server.command("DBSIZE")));
		}
		catch (RuntimeException ex) {
			return 0;
		}
	}

	/**
	 * End the client's current phase.
	 * @return what the phase saw
	 * @throws IOException if the client cannot be told
	 */
	public Map<String, String> endPhase() throws IOException {
		OutputStream input = this.client.getOutputStream();
		input.write('\n');
		input.flush();
		return awaitReport();
	}

	/**
	 * Stop the client and wait for it to exit.
	 * @return what the last phase saw
	 * @throws Exception if it does not exit cleanly
	 */
	public Map<String, String> stop() throws Exception {
		try (OutputStream input = this.client.getOutputStream()) {
			input.write("stop\n".getBytes(StandardCharsets.US_ASCII));
		}
		Map<String, String> report = awaitReport();
		assertThat(this.client.waitFor(120, TimeUnit.SECONDS)).as("client exits; %s", logTail()).isTrue();
		assertThat(this.client.exitValue()).as("client exit; %s", logTail()).isZero();
		return report;
	}

	/**
	 * Return the keys whose {@code SET} returned {@code OK}, once the client has stopped.
	 * @return the keys
	 * @throws IOException if they cannot be read
	 */
	public List<String> acked() throws IOException {
		return Files.readAllLines(this.directory.resolve("result.acked"));
	}

	private Map<String, String> awaitReport() throws IOException {
		Path report = this.directory.resolve("result." + this.phase++);
		// Bounded: the last report waits for writers of stock Boot, which may wait out
		// the command timeout (60s)
		await().atMost(Duration.ofSeconds(100))
			.pollInterval(Duration.ofMillis(50))
			.failFast("client exited: " + logTail(), () -> !this.client.isAlive() && !Files.exists(report))
			.until(() -> Files.exists(report));
		Map<String, String> result = new HashMap<>();
		for (String line : Files.readAllLines(report)) {
			int equals = line.indexOf('=');
			result.put(line.substring(0, equals), line.substring(equals + 1));
		}
		return result;
	}

	/**
	 * Return the last lines of the client's log.
	 * @return the lines
	 */
	public String logTail() {
		try {
			List<String> lines = Files.readAllLines(this.log);
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
		}
		catch (IOException ex) {
			return "(no client log: " + ex.getMessage() + ")";
		}
	}

	@Override
	public void close() {
		if (this.client != null && this.client.isAlive()) {
			this.client.destroyForcibly();
		}
	}

}
