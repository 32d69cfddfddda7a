package io.github.lettucetuning.benchmarks.modes;

import java.time.Duration;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;

/**
 * Settings every client under test shares: a command timeout of {@link #TIMEOUT}, and for
 * raw Lettuce the client options Spring Boot uses (command timeouts enforced).
 */
final class BenchmarkClients {

	/**
	 * Command (and socket read) timeout of every client.
	 */
	static final Duration TIMEOUT = Duration.ofSeconds(2);

	private BenchmarkClients() {
	}

	/**
	 * Create a raw Lettuce client with its own default client resources.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the client
	 */
	static RedisClient lettuceClient(String host, int port) {
		return configure(RedisClient.create(uri(host, port)));
	}

	/**
	 * Create a raw Lettuce client on given client resources, which the caller shuts down
	 * after the client.
	 * @param host the server's host
	 * @param port the server's port
	 * @param resources the client resources
	 * @return the client
	 */
	static RedisClient lettuceClient(String host, int port, ClientResources resources) {
		return configure(RedisClient.create(resources, uri(host, port)));
	}

	private static RedisURI uri(String host, int port) {
		return RedisURI.builder().withHost(host).withPort(port).withTimeout(TIMEOUT).build();
	}

	private static RedisClient configure(RedisClient client) {
		client.setOptions(ClientOptions.builder().timeoutOptions(TimeoutOptions.enabled()).build());
		return client;
	}

}
