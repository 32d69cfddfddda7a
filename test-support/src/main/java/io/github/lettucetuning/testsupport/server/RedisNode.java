package io.github.lettucetuning.testsupport.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handle on one {@code redis-server} (or Sentinel) process listening on 127.0.0.1. Every
 * administrative command opens a short-lived connection named
 * {@value #ADMIN_CLIENT_NAME}, so a killed, paused or restarted node never leaves a stale
 * admin connection behind. Lifecycle methods are thread-safe.
 */
public final class RedisNode implements AutoCloseable {

	/**
	 * Name of the connections this handle opens for its own commands.
	 */
	public static final String ADMIN_CLIENT_NAME = "lettuce-tuning-admin";

	/**
	 * The loopback address every node binds to.
	 */
	public static final String HOST = "127.0.0.1";

	static final String LOG_FILE_NAME = "redis.log";

	static final String CONFIG_FILE_NAME = "redis.conf";

	static final String OUTPUT_FILE_NAME = "process.out";

	private static final Logger logger = LoggerFactory.getLogger(RedisNode.class);

	private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);

	private static final Duration KILL_TIMEOUT = Duration.ofSeconds(10);

	private static final int LOG_TAIL_LINES = 30;

	private final Path executable;

	private final RedisServerConfig config;

	private final int port;

	private final Path directory;

	private final Object lifecycleLock = new Object();

	private volatile @Nullable Process process;

	private volatile long pid = -1;

	private volatile boolean paused;

	private volatile boolean stopped;

	RedisNode(Path executable, RedisServerConfig config, int port, Path directory) {
		this.executable = executable;
		this.config = config;
		this.port = port;
		this.directory = directory;
	}

	public String name() {
		return this.config.name();
	}

	public String host() {
		return this.config.host();
	}

	public int port() {
		return this.port;
	}

	/**
	 * Return the pid of the current process, or of the last one once it died.
	 * @return the pid, {@code -1} if never started
	 */
	public long pid() {
		return this.pid;
	}

	/**
	 * Return the address as a {@code redis://} URI without credentials.
	 * @return the URI
	 */
	public String uri() {
		return "redis://" + host() + ":" + this.port;
	}

	public RedisServerConfig config() {
		return this.config;
	}

	/**
	 * Return the node directory holding its config file, log and (for cluster nodes)
	 * {@code nodes.conf}. It survives {@link #kill()} and is deleted by {@link #stop()}.
	 * @return the node directory
	 */
	public Path directory() {
		return this.directory;
	}

	public Path logFile() {
		return this.directory.resolve(LOG_FILE_NAME);
	}

	public boolean isAlive() {
		Process current = this.process;
		return current != null && current.isAlive();
	}

	public boolean isPaused() {
		return this.paused;
	}

	/**
	 * Open a new authenticated admin connection; the caller closes it.
	 * @return the connection
	 */
	public RespClient connect() {
		return connect(RespClient.DEFAULT_READ_TIMEOUT);
	}

	/**
	 * Open a new authenticated admin connection with a specific read timeout.
	 * @param readTimeout the read timeout
	 * @return the connection
	 */
	public RespClient connect(Duration readTimeout) {
		RespClient client = RespClient.connect(host(), this.port, RespClient.DEFAULT_CONNECT_TIMEOUT, readTimeout);
		try {
			authenticate(client);
			client.command("CLIENT", "SETNAME", ADMIN_CLIENT_NAME);
			return client;
		}
		catch (RuntimeException ex) {
			client.close();
			throw ex;
		}
	}

	/**
	 * Run one command on a fresh admin connection.
	 * @param args the command and its arguments
	 * @return the reply (see {@link RespClient#command(String...)})
	 */
	public @Nullable Object command(String... args) {
		return command(RespClient.DEFAULT_READ_TIMEOUT, args);
	}

	/**
	 * Run one command on a fresh admin connection with a specific read timeout.
	 * @param readTimeout the read timeout
	 * @param args the command and its arguments
	 * @return the reply
	 */
	public @Nullable Object command(Duration readTimeout, String... args) {
		try (RespClient client = connect(readTimeout)) {
			return client.command(args);
		}
	}

	/**
	 * Run one command and return its reply as a string.
	 * @param args the command and its arguments
	 * @return the reply as a string
	 */
	public String commandAsString(String... args) {
		return String.valueOf(command(args));
	}

	/**
	 * Parse {@code INFO <section>}.
	 * @param section the section, e.g. {@code replication}
	 * @return the fields of the section
	 */
	public Map<String, String> info(String section) {
		return RedisInfo.parse(commandAsString("INFO", section));
	}

	/**
	 * Return the role reported by {@code ROLE}: {@code master}, {@code slave} or
	 * {@code sentinel}.
	 * @return the role
	 */
	public String role() {
		Object role = command(Duration.ofSeconds(2), "ROLE");
		return (role instanceof List<?> parts && !parts.isEmpty()) ? String.valueOf(parts.get(0))
				: String.valueOf(role);
	}

	/**
	 * Parse {@code CLIENT LIST}; the admin connection running the command is included.
	 * @return the connected clients
	 */
	public List<ClientInfo> clientList() {
		return ClientInfo.parseList(commandAsString("CLIENT", "LIST"));
	}

	/**
	 * Count the connections with the given client name.
	 * @param clientName the name set with {@code CLIENT SETNAME}
	 * @return the number of connections
	 */
	public long countClients(String clientName) {
		return clientList().stream().filter((client) -> client.name().equals(clientName)).count();
	}

	/**
	 * Kill the connections whose client name, or id, equals the argument.
	 * @param clientNameOrId a client name or a numeric client id
	 * @return how many connections were killed
	 */
	public long killClient(String clientNameOrId) {
		long killed = 0;
		for (ClientInfo client : clientList()) {
			boolean matches = client.name().equals(clientNameOrId) || Long.toString(client.id()).equals(clientNameOrId);
			if (matches && !client.name().equals(ADMIN_CLIENT_NAME)) {
				Object result = command("CLIENT", "KILL", "ID", Long.toString(client.id()));
				killed += (result instanceof Long count) ? count : 0;
			}
		}
		return killed;
	}

	/**
	 * Block the server for the given time with {@code DEBUG SLEEP}. The command is
	 * written before this method returns, the reply is awaited on a background thread.
	 * @param duration how long the server sleeps
	 * @return completes when the server woke up and answered
	 */
	public CompletableFuture<Void> debugSleep(Duration duration) {
		RespClient client = connect(duration.plus(RespClient.DEFAULT_READ_TIMEOUT));
		String seconds = String.format(Locale.ROOT, "%.3f", duration.toMillis() / 1000.0);
		client.send("DEBUG", "SLEEP", seconds);
		CompletableFuture<Void> done = new CompletableFuture<>();
		Thread waiter = new Thread(() -> awaitReply(client, done), "redis-debug-sleep-" + this.port);
		waiter.setDaemon(true);
		waiter.start();
		awaitSleeping(done);
		return done;
	}

	/**
	 * A command sent is not yet a command processed: without this, a request sent right
	 * after {@link #debugSleep(Duration)} may be served before the sleep starts.
	 */
	private void awaitSleeping(CompletableFuture<Void> done) {
		long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
		while (!done.isDone() && System.nanoTime() < deadline) {
			String channel = ProcessSignals.waitChannel(this.pid);
			if (channel.contains("nanosleep")) {
				return;
			}
			if ("?".equals(channel)) {
				// Cannot observe the process: give the server a moment to pick the
				// command up
				Await.sleep(Duration.ofMillis(50));
				return;
			}
			Thread.onSpinWait();
		}
	}

	private static void awaitReply(RespClient client, CompletableFuture<Void> done) {
		try (client) {
			client.readReply();
			done.complete(null);
		}
		catch (RuntimeException ex) {
			done.completeExceptionally(ex);
		}
	}

	/**
	 * Freeze the process with SIGSTOP: connections stay open but nothing is answered,
	 * like a long GC pause or a hung host.
	 */
	public void pause() {
		synchronized (this.lifecycleLock) {
			long current = requireAlive("pause");
			ProcessSignals.send(current, "STOP");
			this.paused = true;
			// Signal delivery is asynchronous: only report "paused" once the kernel
			// agrees
			Await.until(Duration.ofSeconds(5), this + " to be stopped by SIGSTOP",
					() -> isStoppedOrUnknown(current) ? null : "state " + ProcessSignals.state(current));
		}
	}

	/**
	 * Continue a paused process with SIGCONT. Does nothing if the node is not paused.
	 */
	public void resume() {
		synchronized (this.lifecycleLock) {
			if (this.paused && isAlive()) {
				ProcessSignals.send(this.pid, "CONT");
			}
			this.paused = false;
		}
	}

	/**
	 * Bring the node back after a fault test: continue it if it is paused, start it again
	 * if it was killed. Does nothing to a node that runs.
	 */
	public void recover() {
		resume();
		if (!isAlive()) {
			restart();
		}
	}

	/**
	 * Kill the process with SIGKILL and wait until it is gone. The node directory and
	 * port are kept so that {@link #restart()} brings the same node back.
	 */
	public void kill() {
		synchronized (this.lifecycleLock) {
			Process current = this.process;
			if (current != null && current.isAlive()) {
				current.destroyForcibly();
				if (!waitFor(current, KILL_TIMEOUT)) {
					throw new RedisServerException(this + " survived SIGKILL for " + KILL_TIMEOUT);
				}
				logger.debug("Killed {}", this);
			}
			processEnded();
		}
	}

	/**
	 * Start the node again on the same port with the same directory, so a cluster node
	 * keeps its {@code nodes.conf} identity. A running node is shut down first.
	 */
	public void restart() {
		synchronized (this.lifecycleLock) {
			if (this.stopped) {
				throw new IllegalStateException(this + " was stopped and its directory deleted: cannot restart it");
			}
			Process current = this.process;
			if (current != null && current.isAlive()) {
				shutDown(current);
			}
			launch();
			logger.debug("Restarted {}", this);
		}
	}

	/**
	 * Shut the node down ({@code SHUTDOWN NOSAVE NOW}, then SIGTERM, then SIGKILL, each
	 * bounded), release its port and delete its directory. Idempotent.
	 */
	public void stop() {
		synchronized (this.lifecycleLock) {
			if (this.stopped) {
				return;
			}
			this.stopped = true;
			Process current = this.process;
			if (current != null && current.isAlive()) {
				shutDown(current);
			}
			processEnded();
			RedisProcessRegistry.get().forget(this);
			FreePorts.release(this.port);
			RedisProcessRegistry.deleteRecursively(this.directory);
			logger.debug("Stopped {}", this);
		}
	}

	@Override
	public void close() {
		stop();
	}

	/**
	 * Return the last lines of the node's log and of its standard output, for error
	 * messages.
	 * @param lines how many lines of each file
	 * @return the tail of the logs
	 */
	public String logTail(int lines) {
		return tail(logFile(), lines) + tail(this.directory.resolve(OUTPUT_FILE_NAME), lines);
	}

	void start() {
		synchronized (this.lifecycleLock) {
			writeConfigFile();
			RedisProcessRegistry.get().track(this);
			launch();
			logger.debug("Started {} (pid {}) in {}", this, this.pid, this.directory);
		}
	}

	void destroyOnShutdown() {
		// Runs in a shutdown hook: no locks, another thread may hang while holding them
		Process current = this.process;
		if (current != null) {
			current.destroyForcibly();
			waitFor(current, Duration.ofSeconds(2));
			RedisProcessRegistry.get().processEnded(current.pid());
		}
		RedisProcessRegistry.deleteRecursively(this.directory);
	}

	private void writeConfigFile() {
		try {
			Files.write(this.directory.resolve(CONFIG_FILE_NAME), this.config.render(this.directory, this.port),
					StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write the configuration of " + this, ex);
		}
	}

	private void launch() {
		List<String> command = new ArrayList<>(
				List.of(this.executable.toString(), this.directory.resolve(CONFIG_FILE_NAME).toString()));
		if (this.config.isSentinel()) {
			command.add("--sentinel");
		}
		Process started;
		try {
			started = new ProcessBuilder(command).directory(this.directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(Redirect.appendTo(this.directory.resolve(OUTPUT_FILE_NAME).toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new RedisServerException("Cannot start " + command, ex);
		}
		this.process = started;
		this.pid = started.pid();
		this.paused = false;
		RedisProcessRegistry.get().processStarted(this, started.pid());
		try {
			awaitReady(started);
		}
		catch (RuntimeException ex) {
			started.destroyForcibly();
			waitFor(started, KILL_TIMEOUT);
			processEnded();
			throw ex;
		}
	}

	private void awaitReady(Process started) {
		long deadline = System.nanoTime() + this.config.startupTimeout().toNanos();
		String lastState = "not checked yet";
		while (true) {
			if (!started.isAlive()) {
				throw exitedEarly(started);
			}
			try {
				if (answersAsThisProcess(started.pid())) {
					return;
				}
				lastState = "another process answers on port " + this.port;
			}
			catch (RuntimeException ex) {
				lastState = ex.getMessage();
			}
			if (System.nanoTime() > deadline) {
				throw new RedisServerException(
						this + " did not answer PING within " + this.config.startupTimeout().toMillis()
								+ " ms. Last state: " + lastState + ". Last log lines:\n" + logTail(LOG_TAIL_LINES));
			}
			Await.sleep(Duration.ofMillis(20));
		}
	}

	private boolean answersAsThisProcess(long expectedPid) {
		try (RespClient client = RespClient.connect(host(), this.port, Duration.ofMillis(250), Duration.ofSeconds(1))) {
			authenticate(client);
			client.command("PING");
			// Another JVM may have won the race for this port: make sure it is our
			// process
			String processId = RedisInfo.parse(client.commandAsString("INFO", "server")).get("process_id");
			return Long.toString(expectedPid).equals(processId);
		}
	}

	private RedisServerException exitedEarly(Process started) {
		String tail = logTail(LOG_TAIL_LINES);
		String message = this + " exited with code " + started.exitValue() + " before answering PING. Last log lines:\n"
				+ tail;
		return tail.contains("Address already in use") ? new PortConflictException(message)
				: new RedisServerException(message);
	}

	private void authenticate(RespClient client) {
		String password = this.config.password();
		if (password != null) {
			client.command("AUTH", password);
		}
	}

	private void shutDown(Process current) {
		if (this.paused) {
			resume();
		}
		try (RespClient client = connect(Duration.ofSeconds(1))) {
			client.send("SHUTDOWN", "NOSAVE", "NOW");
			client.readReply();
		}
		catch (RuntimeException ex) {
			// Expected: a successful SHUTDOWN closes the connection without a reply
		}
		if (!waitFor(current, STOP_TIMEOUT)) {
			current.destroy();
			if (!waitFor(current, STOP_TIMEOUT)) {
				current.destroyForcibly();
				waitFor(current, KILL_TIMEOUT);
			}
		}
		processEnded();
	}

	private void processEnded() {
		this.paused = false;
		Process current = this.process;
		if (current != null && !current.isAlive()) {
			RedisProcessRegistry.get().processEnded(current.pid());
		}
	}

	private long requireAlive(String action) {
		if (!isAlive()) {
			throw new IllegalStateException("Cannot " + action + " " + this + ": it is not running");
		}
		return this.pid;
	}

	private static boolean isStoppedOrUnknown(long pid) {
		char state = ProcessSignals.state(pid);
		return state == 'T' || state == 't' || state == '?';
	}

	private static boolean waitFor(Process process, Duration timeout) {
		try {
			return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return !process.isAlive();
		}
	}

	private static String tail(Path file, int lines) {
		try {
			List<String> all = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
			if (all.isEmpty()) {
				return "";
			}
			List<String> last = all.subList(Math.max(0, all.size() - lines), all.size());
			return "--- " + file.getFileName() + " ---\n" + String.join("\n", last) + "\n";
		}
		catch (IOException ex) {
			return "";
		}
	}

	@Override
	public String toString() {
		return "RedisNode[" + name() + "@" + host() + ":" + this.port + "]";
	}

}
