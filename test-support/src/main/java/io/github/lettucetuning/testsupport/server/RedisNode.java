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
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Handle on one {@code redis-server} (or Sentinel) process listening on 127.0.0.1: its
 * lifecycle (start, restart, stop), ports and directory, and commands on admin
 * connections. Every administrative command opens a short-lived connection named
 * {@value #ADMIN_CLIENT_NAME}, so a killed, paused or restarted node never leaves a stale
 * admin connection behind. Lifecycle methods are thread-safe. Faults (pause, kill,
 * {@code DEBUG SLEEP}, {@code CLIENT KILL}) are in {@code testsupport.fault.Faults}.
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

	private final int tlsPort;

	private final Path directory;

	private final Object lifecycleLock = new Object();

	private volatile @Nullable Process process;

	private volatile long pid = -1;

	private volatile boolean stopped;

	RedisNode(Path executable, RedisServerConfig config, int port, Path directory) {
		this(executable, config, port, 0, directory);
	}

	RedisNode(Path executable, RedisServerConfig config, int port, int tlsPort, Path directory) {
		this.executable = executable;
		this.config = config;
		this.port = port;
		this.tlsPort = tlsPort;
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
	 * Return the port the node accepts TLS connections on.
	 * @return the port, {@code 0} when TLS is not enabled
	 * ({@link RedisServerConfig#withTls})
	 */
	public int tlsPort() {
		return this.tlsPort;
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
	 * {@code nodes.conf}. It survives the end of the process ({@link #awaitExit}) and is
	 * deleted by {@link #stop()}.
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

	/**
	 * Return whether the process is stopped by a signal ({@code SIGSTOP}), as the kernel
	 * reports it in {@code /proc}.
	 * @return whether the node is paused; {@code false} if it does not run or the kernel
	 * cannot be asked
	 */
	public boolean isPaused() {
		Process current = this.process;
		return current != null && current.isAlive() && isStopped(current.pid());
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
	 * Send a POSIX signal to the running process: {@code KILL} through the JDK (as
	 * {@link Process#destroyForcibly()}), any other through {@code kill(1)}. The fault
	 * actions of {@code testsupport.fault} (pause, resume, kill) are built on it.
	 * @param signal the signal name without {@code SIG}, e.g. {@code STOP}
	 * @return whether it was sent: {@code false} if the process is not running
	 */
	public boolean signal(String signal) {
		synchronized (this.lifecycleLock) {
			Process current = this.process;
			if (current == null || !current.isAlive()) {
				return false;
			}
			if ("KILL".equals(signal)) {
				current.destroyForcibly();
			}
			else {
				ProcessSignals.send(current.pid(), signal);
			}
			return true;
		}
	}

	/**
	 * Wait until the process has ended (after {@code SIGKILL} or on its own) and forget
	 * it. The node directory and port are kept so that {@link #restart()} brings the same
	 * node back.
	 * @param timeout how long to wait
	 * @throws RedisServerException if the process still runs after the timeout
	 */
	public void awaitExit(Duration timeout) {
		synchronized (this.lifecycleLock) {
			Process current = this.process;
			if (current != null && current.isAlive() && !waitFor(current, timeout)) {
				throw new RedisServerException(this + " still runs after " + timeout);
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
			if (this.tlsPort > 0) {
				FreePorts.release(this.tlsPort);
			}
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
			Files.write(this.directory.resolve(CONFIG_FILE_NAME),
					this.config.render(this.directory, this.port, this.tlsPort), StandardCharsets.UTF_8);
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
		if (isStopped(current.pid())) {
			// Paused by a fault: it can neither answer SHUTDOWN nor act on SIGTERM
			ProcessSignals.send(current.pid(), "CONT");
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
		Process current = this.process;
		if (current != null && !current.isAlive()) {
			RedisProcessRegistry.get().processEnded(current.pid());
		}
	}

	private static boolean isStopped(long pid) {
		char state = ProcessSignals.state(pid);
		return state == 'T' || state == 't';
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
