package io.github.lettucetuning.sample.localredis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway {@code redis-server} for the sample: the executable from the {@code PATH},
 * a free port on the loopback address, no persistence, a temporary working directory.
 * {@link #start()} returns once the server answers {@code PING}; {@link #stop()} (or,
 * failing that, a shutdown hook) ends the process and deletes its directory.
 */
public final class LocalRedisServer {

	static final String HOST = "127.0.0.1";

	private static final long STARTUP_MILLIS = 10_000;

	private final Process process;

	private final int port;

	private final Path directory;

	private final Thread shutdownHook;

	private LocalRedisServer(Process process, int port, Path directory) {
		this.process = process;
		this.port = port;
		this.directory = directory;
		this.shutdownHook = new Thread(this::destroy, "local-redis-server-shutdown");
		Runtime.getRuntime().addShutdownHook(this.shutdownHook);
	}

	/**
	 * Start a server and wait until it answers {@code PING}.
	 * @return the running server
	 * @throws RedisServerNotFoundException if no {@code redis-server} is on the
	 * {@code PATH}
	 * @throws IllegalStateException if it does not come up
	 */
	public static LocalRedisServer start() {
		Path executable = findOnPath();
		// Another process may take the free port between our check and the server's bind:
		// the server then exits, and a second port is tried.
		for (int attempt = 1;; attempt++) {
			try {
				return start(executable, freePort());
			}
			catch (IllegalStateException ex) {
				if (attempt == 3) {
					throw ex;
				}
			}
		}
	}

	private static LocalRedisServer start(Path executable, int port) {
		Path directory;
		Process process;
		try {
			directory = Files.createTempDirectory("lettuce-tuning-sample-redis");
			process = new ProcessBuilder(executable.toString(), "--port", Integer.toString(port), "--bind", HOST,
					"--save", "", "--appendonly", "no", "--dir", directory.toString())
				.redirectErrorStream(true)
				.redirectOutput(directory.resolve("redis.log").toFile())
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + executable, ex);
		}
		LocalRedisServer server = new LocalRedisServer(process, port, directory);
		long deadline = System.currentTimeMillis() + STARTUP_MILLIS;
		while (!LocalRedisFallback.answersPing(new InetSocketAddress(HOST, port))) {
			if (!process.isAlive() || System.currentTimeMillis() > deadline) {
				String log = server.log();
				server.stop();
				throw new IllegalStateException("redis-server did not come up on " + HOST + ":" + port + "\n" + log);
			}
			sleep(50);
		}
		return server;
	}

	public String host() {
		return HOST;
	}

	public int port() {
		return this.port;
	}

	public boolean isAlive() {
		return this.process.isAlive();
	}

	/**
	 * Stop the server and delete its directory.
	 */
	public void stop() {
		try {
			Runtime.getRuntime().removeShutdownHook(this.shutdownHook);
		}
		catch (IllegalStateException ex) {
			// The JVM is shutting down: the hook runs anyway.
		}
		destroy();
	}

	private void destroy() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(5, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		try (Stream<Path> files = Files.walk(this.directory)) {
			for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
				Files.deleteIfExists(file);
			}
		}
		catch (IOException ex) {
			// A temporary directory: left for the system to clean up.
		}
	}

	private String log() {
		try {
			List<String> lines = Files.readAllLines(this.directory.resolve("redis.log"));
			return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
		}
		catch (IOException ex) {
			return "";
		}
	}

	private static Path findOnPath() {
		String path = System.getenv("PATH");
		if (path != null) {
			for (String entry : path.split(File.pathSeparator)) {
				Path candidate = Path.of(entry, "redis-server");
				if (Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		throw new RedisServerNotFoundException("redis-server is not on the PATH (" + path + ")");
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No free port on " + HOST, ex);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
		}
	}

	/**
	 * Thrown when there is no {@code redis-server} to start.
	 */
	public static class RedisServerNotFoundException extends RuntimeException {

		RedisServerNotFoundException(String message) {
			super(message);
		}

	}

}
