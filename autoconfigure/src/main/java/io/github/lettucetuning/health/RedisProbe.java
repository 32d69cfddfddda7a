package io.github.lettucetuning.health;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import io.lettuce.core.masterreplica.StatefulRedisMasterReplicaConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

/**
 * Asks Redis whether it is alive by a route that no event loop of the client carries: a
 * plain socket, opened and closed by the calling thread, that sends {@code PING} to each
 * server the client's commands go to. Any reply counts, an error too ({@code NOAUTH} says
 * the server runs as well as {@code PONG} does), so the probe needs no credentials and
 * sends none. Used only when a check timed out while an event loop was blocked: never on
 * a healthy application's path.
 * <p>
 * The servers: a standalone server's address; a Sentinel setup's master, as the first
 * sentinel that answers names it; a cluster's masters that hold slots, from the client's
 * view. A TLS connection, a Unix socket and static master/replica setups are not probed:
 * the probe then knows nothing, and says so.
 */
final class RedisProbe {

	private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);

	private final LettuceTuningConnectionFactory connectionFactory;

	RedisProbe(LettuceTuningConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Ping every server the client's commands go to, all within the timeout.
	 * @param timeout how long all servers together may take
	 * @return what the probe found
	 */
	Outcome ping(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		List<InetSocketAddress> servers;
		try {
			servers = servers(deadline);
		}
		catch (UnknownException ex) {
			return Outcome.unknown(ex.getMessage());
		}
		catch (IOException ex) {
			return Outcome.silent("the sentinels (" + ex.getMessage() + ")");
		}
		for (InetSocketAddress server : servers) {
			try (Socket socket = open(server, deadline)) {
				socket.getOutputStream().write(PING);
				socket.getOutputStream().flush();
				readReply(new BufferedInputStream(socket.getInputStream()));
			}
			catch (IOException ex) {
				return Outcome.silent(describe(server));
			}
		}
		return Outcome.alive(servers.stream().map(RedisProbe::describe).toList());
	}

	private List<InetSocketAddress> servers(long deadline) throws IOException, UnknownException {
		LettuceTuningConnectionFactory factory = this.connectionFactory;
		if (factory.isUseSsl()) {
			throw new UnknownException("TLS connections are not probed");
		}
		AbstractRedisClient client = factory.getRequiredNativeClient();
		if (client instanceof RedisClusterClient cluster) {
			return masters(cluster);
		}
		if (factory.isRedisSentinelAware()) {
			return List.of(sentinelMaster(factory.getSentinelConfiguration(), deadline));
		}
		if (factory.getSocketConfiguration() != null) {
			throw new UnknownException("Unix socket connections are not probed");
		}
		for (StatefulConnection<?, ?> connection : factory.getSharedConnections()) {
			if (connection instanceof StatefulRedisMasterReplicaConnection) {
				throw new UnknownException("master/replica connections are not probed");
			}
		}
		RedisStandaloneConfiguration standalone = factory.getStandaloneConfiguration();
		return List.of(InetSocketAddress.createUnresolved(standalone.getHostName(), standalone.getPort()));
	}

	private static List<InetSocketAddress> masters(RedisClusterClient cluster) throws UnknownException {
		List<InetSocketAddress> masters = new ArrayList<>();
		for (RedisClusterNode node : cluster.getPartitions()) {
			RedisURI uri = node.getUri();
			if (node.is(NodeFlag.UPSTREAM) && !node.hasNoSlots() && uri != null) {
				masters.add(InetSocketAddress.createUnresolved(uri.getHost(), uri.getPort()));
			}
		}
		if (masters.isEmpty()) {
			throw new UnknownException("the client knows no cluster master yet");
		}
		return masters;
	}

	// SENTINEL GET-MASTER-ADDR-BY-NAME from the first sentinel that answers.
	private static InetSocketAddress sentinelMaster(@Nullable RedisSentinelConfiguration configuration, long deadline)
			throws IOException, UnknownException {
		if (configuration == null || configuration.getMaster() == null) {
			throw new UnknownException("no Sentinel master is configured");
		}
		String master = configuration.getMaster().getName();
		byte[] command = command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", master);
		IOException last = new IOException("no sentinel configured");
		for (RedisNode sentinel : configuration.getSentinels()) {
			if (sentinel.getHost() == null || sentinel.getPort() == null) {
				continue;
			}
			try (Socket socket = open(InetSocketAddress.createUnresolved(sentinel.getHost(), sentinel.getPort()),
					deadline)) {
				socket.getOutputStream().write(command);
				socket.getOutputStream().flush();
				InputStream in = new BufferedInputStream(socket.getInputStream());
				String header = line(in);
				if (!header.equals("*2")) {
					throw new UnknownException("the sentinels do not name master " + master + " (" + header + ")");
				}
				String host = bulk(in);
				int port = Integer.parseInt(bulk(in));
				return InetSocketAddress.createUnresolved(host, port);
			}
			catch (IOException | NumberFormatException ex) {
				last = new IOException("last: " + sentinel.getHost() + ":" + sentinel.getPort() + ", " + ex);
			}
		}
		throw last;
	}

	private static Socket open(InetSocketAddress server, long deadline) throws IOException {
		Socket socket = new Socket();
		try {
			socket.connect(new InetSocketAddress(server.getHostString(), server.getPort()), remainingMillis(deadline));
			socket.setSoTimeout(remainingMillis(deadline));
			return socket;
		}
		catch (IOException | RuntimeException ex) {
			socket.close();
			throw ex;
		}
	}

	private static int remainingMillis(long deadline) throws SocketTimeoutException {
		long millis = (deadline - System.nanoTime()) / 1_000_000;
		if (millis <= 0) {
			throw new SocketTimeoutException("no time left");
		}
		return (int) Math.min(Integer.MAX_VALUE, millis);
	}

	// Any complete first line is a reply: +PONG, -NOAUTH..., -LOADING...
	private static void readReply(InputStream in) throws IOException {
		String reply = line(in);
		if (reply.isEmpty()) {
			throw new IOException("empty reply");
		}
	}

	private static String bulk(InputStream in) throws IOException {
		String header = line(in);
		if (!header.startsWith("$")) {
			throw new IOException("not a bulk string: " + header);
		}
		String value = line(in);
		if (value.length() != Integer.parseInt(header.substring(1))) {
			throw new IOException("bulk string of unexpected length");
		}
		return value;
	}

	private static String line(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		int previous = -1;
		while (line.length() < 1024) {
			int next = in.read();
			if (next == -1) {
				throw new IOException("connection closed");
			}
			if (previous == '\r' && next == '\n') {
				return line.substring(0, line.length() - 1);
			}
			line.append((char) next);
			previous = next;
		}
		throw new IOException("reply line too long");
	}

	private static byte[] command(String... arguments) {
		StringBuilder command = new StringBuilder("*").append(arguments.length).append("\r\n");
		for (String argument : arguments) {
			byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
			command.append('$').append(bytes.length).append("\r\n").append(argument).append("\r\n");
		}
		return command.toString().getBytes(StandardCharsets.UTF_8);
	}

	private static String describe(InetSocketAddress server) {
		return server.getHostString() + ":" + server.getPort();
	}

	/**
	 * What a probe found.
	 *
	 * @param state whether Redis answered
	 * @param about the servers that answered, the server that did not, or why the probe
	 * knows nothing
	 */
	record Outcome(State state, String about) {

		static Outcome alive(List<String> servers) {
			return new Outcome(State.ALIVE, String.join(", ", servers));
		}

		static Outcome silent(String server) {
			return new Outcome(State.SILENT, server);
		}

		static Outcome unknown(@Nullable String reason) {
			return new Outcome(State.UNKNOWN, (reason != null) ? reason : "unknown");
		}

	}

	enum State {

		/**
		 * Every server answered.
		 */
		ALIVE,

		/**
		 * A server did not answer in time, or refused the connection.
		 */
		SILENT,

		/**
		 * The probe could not ask.
		 */
		UNKNOWN

	}

	private static final class UnknownException extends Exception {

		UnknownException(String reason) {
			super(reason, null, false, false);
		}

	}

}
