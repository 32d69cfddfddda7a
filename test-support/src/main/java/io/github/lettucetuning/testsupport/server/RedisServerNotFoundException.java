package io.github.lettucetuning.testsupport.server;

/**
 * Thrown when the {@code redis-server} (or {@code redis-cli}) executable cannot be found,
 * or, with Valkey chosen ({@link ServerKind}), no Valkey server can. Tests fail loudly
 * with an install hint instead of being skipped silently.
 */
public class RedisServerNotFoundException extends RedisServerException {

	static final String INSTALL_HINT = "Install it: 'apt-get install -y redis-server' (Debian/Ubuntu) or 'brew install redis' (macOS).";

	public RedisServerNotFoundException(String message) {
		super(message);
	}

}
