package io.github.lettucetuning.testsupport.server;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Process-wide registry of the {@code redis-server} processes started by this JVM.
 * <p>
 * A shutdown hook kills every registered process on normal exit, after failed tests and
 * on SIGINT/SIGTERM. A JVM killed with SIGKILL runs no hook, so every process also gets a
 * pid file under {@code ${java.io.tmpdir}/lettuce-tuning-redis/pids}; the first use of
 * the registry in any later JVM sweeps pid files whose owning JVM is gone and kills the
 * process if it is still one of our nodes (its {@code /proc/<pid>/cmdline} names the node
 * directory). Pid files of JVMs that are still running are left alone, so concurrent
 * builds on one machine do not kill each other's servers.
 */
public final class RedisProcessRegistry {

	/**
	 * System property overriding the work directory.
	 */
	public static final String WORK_DIRECTORY_PROPERTY = "lettuce.tuning.redis-work-dir";

	private static final Logger logger = LoggerFactory.getLogger(RedisProcessRegistry.class);

	private static final Duration KILL_TIMEOUT = Duration.ofSeconds(5);

	private final Path pidDirectory;

	private final Path nodeDirectory;

	private final Set<RedisNode> nodes = ConcurrentHashMap.newKeySet();

	private RedisProcessRegistry(Path workDirectory) {
		this.pidDirectory = workDirectory.resolve("pids");
		this.nodeDirectory = workDirectory.resolve("nodes");
		createDirectories(this.pidDirectory);
		createDirectories(this.nodeDirectory);
	}

	static RedisProcessRegistry get() {
		return Holder.INSTANCE;
	}

	/**
	 * Return the directory holding pid files and node directories.
	 * @return the work directory
	 */
	public static Path workDirectory() {
		String configured = System.getProperty(WORK_DIRECTORY_PROPERTY);
		return (configured != null && !configured.isBlank()) ? Path.of(configured)
				: Path.of(System.getProperty("java.io.tmpdir"), "lettuce-tuning-redis");
	}

	/**
	 * Kill the nodes left behind by JVMs that died without running their shutdown hook.
	 * Runs automatically on first use of the registry.
	 * @return how many stale processes were killed
	 */
	public static int sweepStaleProcesses() {
		return get().sweep();
	}

	/**
	 * Return the pids of the processes currently running for this JVM.
	 * @return the pids
	 */
	public static List<Long> runningPids() {
		return get().nodes.stream().filter(RedisNode::isAlive).map(RedisNode::pid).toList();
	}

	Path newNodeDirectory(String name, int port) {
		String unique = Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
		Path directory = this.nodeDirectory.resolve(name + "-" + port + "-" + unique);
		createDirectories(directory);
		return directory;
	}

	void track(RedisNode node) {
		this.nodes.add(node);
	}

	void forget(RedisNode node) {
		this.nodes.remove(node);
	}

	void processStarted(RedisNode node, long pid) {
		Properties properties = new Properties();
		ProcessHandle owner = ProcessHandle.current();
		properties.setProperty("redis.pid", Long.toString(pid));
		properties.setProperty("owner.pid", Long.toString(owner.pid()));
		properties.setProperty("owner.start", Long.toString(startMillis(owner)));
		properties.setProperty("node.dir", node.directory().toString());
		try (Writer writer = Files.newBufferedWriter(pidFile(pid), StandardCharsets.UTF_8)) {
			properties.store(writer, "redis-server started by lettuce-tuning test support");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write pid file for " + node, ex);
		}
	}

	void processEnded(long pid) {
		deleteQuietly(pidFile(pid));
	}

	private Path pidFile(long pid) {
		return this.pidDirectory.resolve(pid + ".pid");
	}

	private void killAllOnShutdown() {
		for (RedisNode node : List.copyOf(this.nodes)) {
			try {
				node.destroyOnShutdown();
			}
			catch (RuntimeException ex) {
				// Keep going: one stubborn node must not leave the others running
			}
		}
	}

	private int sweep() {
		int killed = 0;
		try (DirectoryStream<Path> pidFiles = Files.newDirectoryStream(this.pidDirectory, "*.pid")) {
			for (Path pidFile : pidFiles) {
				killed += sweep(pidFile);
			}
		}
		catch (IOException ex) {
			logger.warn("Cannot sweep stale redis-server pid files in {}", this.pidDirectory, ex);
		}
		return killed;
	}

	private int sweep(Path pidFile) {
		Optional<Properties> properties = readPidFile(pidFile);
		if (properties.isEmpty()) {
			return 0;
		}
		long ownerPid = Long.parseLong(properties.get().getProperty("owner.pid", "-1"));
		long ownerStart = Long.parseLong(properties.get().getProperty("owner.start", "-1"));
		if (isRunning(ownerPid, ownerStart)) {
			return 0;
		}
		long redisPid = Long.parseLong(properties.get().getProperty("redis.pid", "-1"));
		Path nodeDirectory = Path.of(properties.get().getProperty("node.dir", "/nonexistent"));
		int killed = 0;
		if (isOurNode(redisPid, nodeDirectory)) {
			logger.info("Killing stale redis-server (pid {}) left behind by JVM {}", redisPid, ownerPid);
			killed = kill(redisPid) ? 1 : 0;
		}
		if (nodeDirectory.startsWith(this.nodeDirectory)) {
			deleteRecursively(nodeDirectory);
		}
		deleteQuietly(pidFile);
		return killed;
	}

	private Optional<Properties> readPidFile(Path pidFile) {
		Properties properties = new Properties();
		try (Reader reader = Files.newBufferedReader(pidFile, StandardCharsets.UTF_8)) {
			properties.load(reader);
			return Optional.of(properties);
		}
		catch (IOException | IllegalArgumentException ex) {
			// Deleted by a concurrent sweep or half written by a JVM starting right now
			return Optional.empty();
		}
	}

	private static boolean isRunning(long pid, long expectedStartMillis) {
		Optional<ProcessHandle> process = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
		if (process.isEmpty()) {
			return false;
		}
		long start = startMillis(process.get());
		// A different start time means the pid was reused by an unrelated process
		return expectedStartMillis <= 0 || start <= 0 || Math.abs(start - expectedStartMillis) < 2000;
	}

	static boolean isOurNode(long pid, Path nodeDirectory) {
		if (ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty()) {
			return false;
		}
		String marker = nodeDirectory.toString();
		try {
			byte[] cmdline = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
			if (new String(cmdline, StandardCharsets.UTF_8).replace('\0', ' ').contains(marker)) {
				return true;
			}
			return Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "cwd")).equals(nodeDirectory);
		}
		catch (IOException | UnsupportedOperationException | SecurityException ex) {
			// No /proc (e.g. macOS): fall back to what the JDK can tell about the process
			return ProcessHandle.of(pid)
				.flatMap((process) -> process.info().commandLine())
				.filter((commandLine) -> commandLine.contains(marker))
				.isPresent();
		}
	}

	private static boolean kill(long pid) {
		Optional<ProcessHandle> process = ProcessHandle.of(pid);
		if (process.isEmpty() || !process.get().destroyForcibly()) {
			return false;
		}
		try {
			process.get().onExit().get(KILL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			return true;
		}
		catch (Exception ex) {
			return !process.get().isAlive();
		}
	}

	private static long startMillis(ProcessHandle process) {
		return process.info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
	}

	private static void createDirectories(Path directory) {
		try {
			Files.createDirectories(directory);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot create " + directory, ex);
		}
	}

	static void deleteRecursively(Path directory) {
		if (!Files.exists(directory)) {
			return;
		}
		try (Stream<Path> paths = Files.walk(directory)) {
			List<Path> sorted = new ArrayList<>(paths.sorted(Comparator.reverseOrder()).toList());
			sorted.forEach(RedisProcessRegistry::deleteQuietly);
		}
		catch (IOException | UncheckedIOException ex) {
			// A concurrently exiting redis-server may still be writing its log: best
			// effort
		}
	}

	private static void deleteQuietly(Path path) {
		try {
			Files.deleteIfExists(path);
		}
		catch (NoSuchFileException ex) {
			// Already gone
		}
		catch (IOException ex) {
			logger.debug("Cannot delete {}", path, ex);
		}
	}

	private static final class Holder {

		private static final RedisProcessRegistry INSTANCE = create();

		private static RedisProcessRegistry create() {
			RedisProcessRegistry registry = new RedisProcessRegistry(workDirectory());
			registry.sweep();
			Runtime.getRuntime()
				.addShutdownHook(new Thread(registry::killAllOnShutdown, "lettuce-tuning-redis-shutdown"));
			return registry;
		}

	}

}
