package io.github.lettucetuning.testsupport.server;

import java.nio.file.Path;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts {@code redis-server} processes on free loopback ports, each in its own directory
 * under {@link RedisProcessRegistry#workDirectory()}. Usable without JUnit:
 * <pre class="code">
 * RedisServerLauncher launcher = new RedisServerLauncher();
 * try (RedisNode node = launcher.start(RedisServerConfig.defaults())) {
 *     node.command("SET", "key", "value");
 * }
 * </pre>
 */
public final class RedisServerLauncher {

	private static final Logger logger = LoggerFactory.getLogger(RedisServerLauncher.class);

	private static final int PORT_ATTEMPTS = 5;

	private final Path executable;

	/**
	 * Create a launcher for the server the suite runs against ({@link ServerKind}): the
	 * one named by the {@value RedisExecutables#REDIS_SERVER_PROPERTY} system property or
	 * found on the {@code PATH}.
	 * @throws RedisServerNotFoundException if there is none
	 */
	public RedisServerLauncher() {
		this(RedisExecutables.redisServer());
	}

	/**
	 * Create a launcher for a specific executable.
	 * @param executable the {@code redis-server} executable
	 * @throws RedisServerNotFoundException if it does not exist
	 */
	public RedisServerLauncher(Path executable) {
		this.executable = RedisExecutables.requireExecutable(executable, "the RedisServerLauncher constructor");
	}

	public Path executable() {
		return this.executable;
	}

	/**
	 * Start a node with the default configuration.
	 * @return the running node
	 */
	public RedisNode start() {
		return start(RedisServerConfig.defaults());
	}

	/**
	 * Start a node and wait until it answers {@code PING}.
	 * @param config the node configuration
	 * @return the running node
	 * @throws RedisServerException if it does not come up in time (the message includes
	 * the tail of its log)
	 */
	public RedisNode start(RedisServerConfig config) {
		for (int attempt = 1;; attempt++) {
			RedisNode node = newNode(config);
			try {
				node.start();
				logger.debug("Started {} on attempt {}", node, attempt);
				return node;
			}
			catch (PortConflictException ex) {
				node.stop();
				if (config.port() != 0 || attempt >= PORT_ATTEMPTS) {
					throw ex;
				}
				logger.debug("Port of {} was taken concurrently, retrying on another port", node);
			}
			catch (RuntimeException ex) {
				node.stop();
				throw ex;
			}
		}
	}

	private RedisNode newNode(RedisServerConfig config) {
		int port = config.port();
		if (port == 0) {
			port = FreePorts.reserve(config.isClusterEnabled());
		}
		else {
			FreePorts.reserveExactly(port);
		}
		int tlsPort = config.isTlsEnabled() ? FreePorts.reserve(false) : 0;
		Path directory = RedisProcessRegistry.get().newNodeDirectory(config.name(), port);
		return new RedisNode(this.executable, config, port, tlsPort, directory);
	}

}
