package io.github.lettucetuning.testsupport.testcontainers;

import io.github.lettucetuning.testsupport.server.RespClient;
import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A standalone Redis in a container, for machines with Docker but without
 * {@code redis-server}. Exposes the same address methods as
 * {@link io.github.lettucetuning.testsupport.topology.RedisStandalone}; process faults
 * (pause, kill) are not offered here.
 */
public final class RedisContainerStandalone implements AutoCloseable {

	private static final int REDIS_PORT = 6379;

	private final GenericContainer<?> container;

	private RedisContainerStandalone(GenericContainer<?> container) {
		this.container = container;
	}

	/**
	 * Start the pinned {@link TestImages#REDIS} image.
	 * @return the running container
	 */
	public static RedisContainerStandalone start() {
		return start(TestImages.redis());
	}

	/**
	 * Start a specific Redis image.
	 * @param image the image
	 * @return the running container
	 */
	@SuppressWarnings("resource")
	public static RedisContainerStandalone start(DockerImageName image) {
		GenericContainer<?> container = new GenericContainer<>(image).withExposedPorts(REDIS_PORT)
			.withCommand("redis-server", "--save", "", "--appendonly", "no", "--enable-debug-command", "yes")
			.waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1));
		container.start();
		return new RedisContainerStandalone(container);
	}

	public String host() {
		return this.container.getHost();
	}

	public int port() {
		return this.container.getMappedPort(REDIS_PORT);
	}

	public String uri() {
		return "redis://" + host() + ":" + port();
	}

	/**
	 * Run one command on a fresh connection.
	 * @param args the command and its arguments
	 * @return the reply
	 */
	public @Nullable Object command(String... args) {
		try (RespClient client = RespClient.connect(host(), port())) {
			return client.command(args);
		}
	}

	public GenericContainer<?> container() {
		return this.container;
	}

	@Override
	public void close() {
		this.container.stop();
	}

}
