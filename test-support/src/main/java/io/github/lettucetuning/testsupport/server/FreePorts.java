package io.github.lettucetuning.testsupport.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks free loopback ports for nodes. Ports come from a range below the usual Linux
 * ephemeral range (32768+) so that neither a node port nor its cluster bus port (port +
 * 10000) collides with the source port of some outgoing connection. Ports handed out to
 * nodes of this JVM stay reserved until the node is stopped, so a killed node can be
 * restarted on the same port.
 */
public final class FreePorts {

	static final int CLUSTER_BUS_PORT_OFFSET = 10000;

	private static final int LOWEST_PORT = 12000;

	private static final int HIGHEST_PORT = 22000;

	private static final int ATTEMPTS = 200;

	private static final Set<Integer> reserved = ConcurrentHashMap.newKeySet();

	private FreePorts() {
	}

	/**
	 * Return whether a listening socket could be bound to the port on 127.0.0.1 right
	 * now.
	 * @param port the port
	 * @return {@code true} if the port is free
	 */
	public static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			// Same as redis-server: connections in TIME_WAIT must not count as "in use"
			socket.setReuseAddress(true);
			socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	static int reserve(boolean withClusterBusPort) {
		for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
			int port = ThreadLocalRandom.current().nextInt(LOWEST_PORT, HIGHEST_PORT);
			boolean free = isFree(port) && (!withClusterBusPort || isFree(port + CLUSTER_BUS_PORT_OFFSET));
			if (free && reserved.add(port)) {
				return port;
			}
		}
		throw new RedisServerException("No free loopback port found between " + LOWEST_PORT + " and " + HIGHEST_PORT
				+ " after " + ATTEMPTS + " attempts");
	}

	static void reserveExactly(int port) {
		reserved.add(port);
	}

	static void release(int port) {
		reserved.remove(port);
	}

}
