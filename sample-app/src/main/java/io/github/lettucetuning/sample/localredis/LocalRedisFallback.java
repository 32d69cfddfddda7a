package io.github.lettucetuning.sample.localredis;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Starts a local {@code redis-server} (from the PATH) on a free port when the application
 * configures no Redis and none answers on the default address, and stops it when the
 * application stops. Lets the sample run on a machine with nothing started by hand.
 */
public class LocalRedisFallback implements ApplicationListener<ApplicationEvent> {

	private static final Log logger = LogFactory.getLog(LocalRedisFallback.class);

	private static final String[] CONNECTION_PROPERTIES = { "spring.data.redis.url", "spring.data.redis.host",
			"spring.data.redis.port", "spring.data.redis.sentinel.nodes", "spring.data.redis.cluster.nodes",
			"spring.data.redis.masterreplica.nodes" };

	private final InetSocketAddress defaultAddress;

	private volatile @Nullable LocalRedisServer server;

	/**
	 * Create a fallback that probes Redis's default address, localhost:6379.
	 */
	public LocalRedisFallback() {
		this(new InetSocketAddress("localhost", 6379));
	}

	LocalRedisFallback(InetSocketAddress defaultAddress) {
		this.defaultAddress = defaultAddress;
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			startIfNeeded(prepared.getEnvironment());
		}
		else if (event instanceof ContextClosedEvent || event instanceof ApplicationFailedEvent) {
			stop();
		}
	}

	/**
	 * Start a local server and point the environment at it, unless Redis is configured or
	 * one answers on the default address.
	 * @param environment the application's environment
	 */
	public void startIfNeeded(ConfigurableEnvironment environment) {
		if (isConfigured(environment) || answersPing(this.defaultAddress)) {
			return;
		}
		LocalRedisServer started = LocalRedisServer.start();
		this.server = started;
		environment.getPropertySources()
			.addFirst(new MapPropertySource("localRedisFallback",
					Map.of("spring.data.redis.host", started.host(), "spring.data.redis.port", started.port())));
		logger.info("No Redis configured and none answers on " + this.defaultAddress.getHostString() + ":"
				+ this.defaultAddress.getPort() + ": started redis-server on " + started.host() + ":" + started.port()
				+ "; it stops when the application stops");
	}

	private static boolean isConfigured(ConfigurableEnvironment environment) {
		for (String property : CONNECTION_PROPERTIES) {
			if (environment.containsProperty(property)) {
				return true;
			}
		}
		return false;
	}

	static boolean answersPing(InetSocketAddress address) {
		try (Socket socket = new Socket()) {
			socket.connect(address, 300);
			socket.setSoTimeout(500);
			socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			InputStream in = socket.getInputStream();
			byte[] reply = in.readNBytes(5);
			String answer = new String(reply, StandardCharsets.US_ASCII);
			// An instance that requires a password answers -NOAUTH: it is there, but not
			// ours to use.
			return answer.equals("+PONG");
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * Return the server this fallback started, if any.
	 * @return the started server or {@code null}
	 */
	public @Nullable LocalRedisServer server() {
		return this.server;
	}

	/**
	 * Stop the server this fallback started, if any.
	 */
	public void stop() {
		LocalRedisServer started = this.server;
		this.server = null;
		if (started != null) {
			started.stop();
			logger.info("Stopped the local redis-server on port " + started.port());
		}
	}

}
