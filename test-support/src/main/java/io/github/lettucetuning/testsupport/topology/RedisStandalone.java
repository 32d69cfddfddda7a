package io.github.lettucetuning.testsupport.topology;

import java.util.List;

import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.server.RedisServerLauncher;
import org.jspecify.annotations.Nullable;

/**
 * A single {@code redis-server}, optionally protected by a password and ACL users.
 */
public final class RedisStandalone implements RedisTopology {

	private final RedisNode node;

	private RedisStandalone(RedisNode node) {
		this.node = node;
	}

	/**
	 * Start a node without password.
	 * @return the running topology
	 */
	public static RedisStandalone start() {
		return start(RedisServerConfig.defaults());
	}

	/**
	 * Start a node with a custom configuration, e.g.
	 * {@code RedisServerConfig.defaults().withPassword("secret").withAclUser("app", "pw")}.
	 * @param config the node configuration
	 * @return the running topology
	 */
	public static RedisStandalone start(RedisServerConfig config) {
		return start(new RedisServerLauncher(), config);
	}

	/**
	 * Start a node with a specific launcher.
	 * @param launcher the launcher
	 * @param config the node configuration
	 * @return the running topology
	 */
	public static RedisStandalone start(RedisServerLauncher launcher, RedisServerConfig config) {
		String name = "redis".equals(config.name()) ? "standalone" : config.name();
		return new RedisStandalone(launcher.start(config.withName(name)));
	}

	public RedisNode node() {
		return this.node;
	}

	public String host() {
		return this.node.host();
	}

	public int port() {
		return this.node.port();
	}

	/**
	 * Return {@code redis://127.0.0.1:<port>}, without credentials.
	 * @return the URI
	 */
	public String uri() {
		return this.node.uri();
	}

	/**
	 * Return the {@code requirepass} password.
	 * @return the password, {@code null} when none is required
	 */
	public @Nullable String password() {
		return this.node.config().password();
	}

	@Override
	public List<RedisNode> nodes() {
		return List.of(this.node);
	}

	@Override
	public void close() {
		this.node.stop();
	}

	@Override
	public String toString() {
		return "RedisStandalone[" + this.node + "]";
	}

}
