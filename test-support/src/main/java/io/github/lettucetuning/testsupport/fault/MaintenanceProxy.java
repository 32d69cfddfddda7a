package io.github.lettucetuning.testsupport.fault;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A RESP proxy on a free loopback port in front of a real {@code redis-server} that plays
 * a server announcing maintenance, as Redis Enterprise and Redis Cloud do: it accepts
 * Lettuce's {@code CLIENT MAINT_NOTIFICATIONS ON} (the server answers a {@code PING} in
 * its place, so that replies stay in order), pushes {@code MIGRATING} / {@code MIGRATED}
 * frames (RESP3 push type {@code >}, in the shape Lettuce's
 * {@code MaintenanceAwareConnectionWatchdog} parses) and holds the server's replies for a
 * while, as a shard being moved does. Everything else passes through unchanged. Push
 * frames go out between replies only when no reply is held or being written: call
 * {@link #migrating} while the connections are idle. It can also drop every connection
 * and close new ones for a while, as a failover or a move does.
 * <p>
 * Plain sockets, two daemon threads per connection; {@link #close()} closes every socket
 * and ends the threads.
 */
public final class MaintenanceProxy implements AutoCloseable {

	private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);

	private final ServerSocket server;

	private final int upstreamPort;

	private final List<Link> links = new CopyOnWriteArrayList<>();

	private final AtomicLong sequence = new AtomicLong();

	private final AtomicLong requestsAccepted = new AtomicLong();

	private volatile long holdUntilNanos = System.nanoTime();

	private volatile long refuseUntilNanos = System.nanoTime();

	private volatile boolean closed;

	private MaintenanceProxy(int upstreamPort) throws IOException {
		this.upstreamPort = upstreamPort;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "maintenance-proxy-accept");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Start a proxy in front of a server on loopback.
	 * @param upstreamPort the server's port
	 * @return the proxy, listening
	 */
	public static MaintenanceProxy start(int upstreamPort) {
		try {
			return new MaintenanceProxy(upstreamPort);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot start the maintenance proxy", ex);
		}
	}

	/**
	 * Return the port clients connect to.
	 * @return the port
	 */
	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Return how many connections are open through the proxy.
	 * @return the open connections
	 */
	public int connections() {
		return this.links.size();
	}

	/**
	 * Return how many {@code CLIENT MAINT_NOTIFICATIONS} requests the proxy accepted.
	 * @return the accepted requests
	 */
	public long requestsAccepted() {
		return this.requestsAccepted.get();
	}

	/**
	 * Push {@code MIGRATING <seq> <seconds> <shards>} to every open connection.
	 * @param window how long the server announces the migration to take
	 */
	public void migrating(Duration window) {
		push(frame("MIGRATING", ":" + this.sequence.incrementAndGet(), ":" + window.toSeconds(), "$1", "1"));
	}

	/**
	 * Push {@code MIGRATED <seq> <shards>} to every open connection.
	 */
	public void migrated() {
		push(frame("MIGRATED", ":" + this.sequence.incrementAndGet(), "$1", "1"));
	}

	/**
	 * Push {@code FAILING_OVER <seq> <seconds> <shards>} to every open connection.
	 * @param window how long the server announces the failover to take
	 */
	public void failingOver(Duration window) {
		push(frame("FAILING_OVER", ":" + this.sequence.incrementAndGet(), ":" + window.toSeconds(), "$1", "1"));
	}

	/**
	 * Push {@code FAILED_OVER <seq> <shards>} to every open connection.
	 */
	public void failedOver() {
		push(frame("FAILED_OVER", ":" + this.sequence.incrementAndGet(), "$1", "1"));
	}

	/**
	 * Push {@code MOVING <seq> <seconds> <host:port>} to every open connection: the
	 * endpoint moves to a server on loopback, which clients are to reconnect to within
	 * the given time.
	 * @param within how long the old endpoint keeps serving
	 * @param port the new endpoint's port on loopback
	 */
	public void moving(Duration within, int port) {
		String endpoint = "127.0.0.1:" + port;
		push(frame("MOVING", ":" + this.sequence.incrementAndGet(), ":" + within.toSeconds(), "$" + endpoint.length(),
				endpoint));
	}

	/**
	 * Hold every reply the server sends from now on until the delay has passed since this
	 * call.
	 * @param delay how long to hold replies
	 */
	public void holdReplies(Duration delay) {
		this.holdUntilNanos = System.nanoTime() + delay.toNanos();
	}

	/**
	 * Close every open connection and close new ones at once for the given time, as a
	 * server does that fails over or moves a shard's endpoint.
	 * @param refuseFor how long new connections are closed at once
	 */
	public void dropConnections(Duration refuseFor) {
		this.refuseUntilNanos = System.nanoTime() + refuseFor.toNanos();
		for (Link link : this.links) {
			link.close();
		}
	}

	private static byte[] frame(String type, String... elements) {
		StringBuilder frame = new StringBuilder();
		int count = 1 + (int) Arrays.stream(elements).filter((element) -> !element.startsWith("$")).count();
		frame.append('>').append(count).append("\r\n");
		frame.append('$').append(type.length()).append("\r\n").append(type).append("\r\n");
		for (String element : elements) {
			frame.append(element).append("\r\n");
		}
		return frame.toString().getBytes(StandardCharsets.US_ASCII);
	}

	private void push(byte[] frame) {
		for (Link link : this.links) {
			link.toClient(frame, frame.length);
		}
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				if (this.refuseUntilNanos - System.nanoTime() > 0) {
					closeQuietly(client);
					continue;
				}
				Socket upstream = new Socket();
				upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.upstreamPort), 2000);
				Link link = new Link(client, upstream);
				this.links.add(link);
				link.start();
			}
			catch (IOException ex) {
				// Closed, or the server is gone: the client sees its connection refused
			}
		}
	}

	@Override
	public void close() {
		this.closed = true;
		closeQuietly(this.server);
		for (Link link : this.links) {
			link.close();
		}
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// Closing anyway
		}
	}

	private final class Link {

		private final Socket client;

		private final Socket upstream;

		private final OutputStream clientOut;

		Link(Socket client, Socket upstream) throws IOException {
			this.client = client;
			this.upstream = upstream;
			this.clientOut = client.getOutputStream();
		}

		void start() {
			Thread requests = new Thread(this::requests, "maintenance-proxy-requests");
			requests.setDaemon(true);
			requests.start();
			Thread replies = new Thread(this::replies, "maintenance-proxy-replies");
			replies.setDaemon(true);
			replies.start();
		}

		// Client to server, one command at a time: RESP arrays of bulk strings.
		private void requests() {
			try (InputStream in = this.client.getInputStream(); OutputStream out = this.upstream.getOutputStream()) {
				while (true) {
					ByteArrayOutputStream command = new ByteArrayOutputStream();
					String header = readLine(in, command);
					int count = Integer.parseInt(header.substring(1));
					String first = null;
					String second = null;
					for (int i = 0; i < count; i++) {
						int length = Integer.parseInt(readLine(in, command).substring(1));
						byte[] argument = in.readNBytes(length + 2);
						if (argument.length < length + 2) {
							throw new EOFException();
						}
						command.write(argument);
						String text = new String(argument, 0, length, StandardCharsets.UTF_8);
						if (i == 0) {
							first = text;
						}
						else if (i == 1) {
							second = text;
						}
					}
					if ("CLIENT".equalsIgnoreCase(first) && second != null
							&& "MAINT_NOTIFICATIONS".equals(second.toUpperCase(Locale.ROOT))) {
						MaintenanceProxy.this.requestsAccepted.incrementAndGet();
						out.write(PING);
					}
					else {
						command.writeTo(out);
					}
					out.flush();
				}
			}
			catch (IOException | RuntimeException ex) {
				close();
			}
		}

		private String readLine(InputStream in, ByteArrayOutputStream copy) throws IOException {
			StringBuilder line = new StringBuilder();
			int previous = -1;
			while (true) {
				int next = in.read();
				if (next < 0) {
					throw new EOFException();
				}
				copy.write(next);
				if (previous == '\r' && next == '\n') {
					return line.substring(0, line.length() - 1);
				}
				line.append((char) next);
				previous = next;
			}
		}

		private void replies() {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = this.upstream.getInputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					long wait = MaintenanceProxy.this.holdUntilNanos - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait);
					}
					toClient(buffer, read);
				}
			}
			catch (IOException ex) {
				// Closed
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			close();
		}

		synchronized void toClient(byte[] bytes, int length) {
			try {
				this.clientOut.write(bytes, 0, length);
				this.clientOut.flush();
			}
			catch (IOException ex) {
				close();
			}
		}

		void close() {
			MaintenanceProxy.this.links.remove(this);
			closeQuietly(this.client);
			closeQuietly(this.upstream);
		}

	}

}
