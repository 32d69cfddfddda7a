package io.github.lettucetuning.testsupport.server;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A tiny, dependency-free and deliberately dumb RESP client over a plain {@link Socket}.
 * It exists so that the test infrastructure never depends on the client library under
 * test: readiness checks, topology bootstrap and fault injection all go through it. Not
 * thread-safe.
 */
public final class RespClient implements AutoCloseable {

	/**
	 * Connect timeout used when none is given.
	 */
	public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

	/**
	 * Read timeout used when none is given.
	 */
	public static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(5);

	private static final byte[] CRLF = { '\r', '\n' };

	private final String address;

	private final Socket socket;

	private final OutputStream output;

	private final RespReader reader;

	private RespClient(String host, int port, Socket socket) throws IOException {
		this.address = host + ":" + port;
		this.socket = socket;
		this.output = new BufferedOutputStream(socket.getOutputStream());
		this.reader = new RespReader(new BufferedInputStream(socket.getInputStream()));
	}

	/**
	 * Connect with the default timeouts.
	 * @param host the host
	 * @param port the port
	 * @return a connected client
	 */
	public static RespClient connect(String host, int port) {
		return connect(host, port, DEFAULT_CONNECT_TIMEOUT, DEFAULT_READ_TIMEOUT);
	}

	/**
	 * Connect with explicit timeouts.
	 * @param host the host
	 * @param port the port
	 * @param connectTimeout the connect timeout
	 * @param readTimeout the timeout for every read of a reply
	 * @return a connected client
	 * @throws UncheckedIOException if the connection cannot be established
	 */
	public static RespClient connect(String host, int port, Duration connectTimeout, Duration readTimeout) {
		Socket socket = new Socket();
		try {
			socket.setTcpNoDelay(true);
			socket.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
			socket.connect(new InetSocketAddress(host, port), Math.toIntExact(connectTimeout.toMillis()));
			return new RespClient(host, port, socket);
		}
		catch (IOException ex) {
			closeQuietly(socket);
			throw new UncheckedIOException("Cannot connect to " + host + ":" + port + ": " + ex.getMessage(), ex);
		}
	}

	/**
	 * Send a command and wait for its reply.
	 * @param args the command and its arguments
	 * @return the reply: a {@link String}, {@link Long}, {@link java.util.List},
	 * {@link java.util.Map} or {@code null}
	 * @throws RespErrorException if the server answered with an error
	 * @throws UncheckedIOException on I/O errors and read timeouts
	 */
	public @Nullable Object command(String... args) {
		send(args);
		return readReply(args[0]);
	}

	/**
	 * Send a command and return its reply as a string ({@code String.valueOf} of
	 * non-string replies).
	 * @param args the command and its arguments
	 * @return the reply as a string, never {@code null} ({@code "null"} for a nil reply)
	 */
	public String commandAsString(String... args) {
		return String.valueOf(command(args));
	}

	/**
	 * Write a command without waiting for its reply; read it later with
	 * {@link #readReply()}.
	 * @param args the command and its arguments
	 */
	public void send(String... args) {
		if (args.length == 0) {
			throw new IllegalArgumentException("A command needs at least a name");
		}
		try {
			writeCommand(args);
			this.output.flush();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot send " + args[0] + " to " + this.address + ": " + ex.getMessage(),
					ex);
		}
	}

	/**
	 * Read the next reply.
	 * @return the reply
	 * @throws RespErrorException if the server answered with an error
	 */
	public @Nullable Object readReply() {
		return readReply("reply");
	}

	private @Nullable Object readReply(String what) {
		Object reply;
		try {
			reply = this.reader.read();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read " + what + " from " + this.address + ": "
					+ ex.getClass().getSimpleName() + " " + Objects.toString(ex.getMessage(), ""), ex);
		}
		if (reply instanceof RespErrorException error) {
			throw new RespErrorException(error.getMessage());
		}
		return reply;
	}

	/**
	 * Change the read timeout for subsequent replies.
	 * @param readTimeout the new read timeout
	 */
	public void readTimeout(Duration readTimeout) {
		try {
			this.socket.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Return the local port of this connection, useful to find it in {@code CLIENT LIST}.
	 * @return the local port
	 */
	public int localPort() {
		return this.socket.getLocalPort();
	}

	@Override
	public void close() {
		closeQuietly(this.socket);
	}

	private void writeCommand(String[] args) throws IOException {
		this.output.write(('*' + Integer.toString(args.length)).getBytes(StandardCharsets.US_ASCII));
		this.output.write(CRLF);
		for (String arg : args) {
			byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
			this.output.write(('$' + Integer.toString(bytes.length)).getBytes(StandardCharsets.US_ASCII));
			this.output.write(CRLF);
			this.output.write(bytes);
			this.output.write(CRLF);
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Nothing useful to do: the connection is going away anyway
		}
	}

	@Override
	public String toString() {
		return "RespClient[" + this.address + "]";
	}

}
