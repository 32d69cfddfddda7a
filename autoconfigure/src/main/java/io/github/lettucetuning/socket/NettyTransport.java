package io.github.lettucetuning.socket;

/**
 * A Netty transport Lettuce can run on.
 *
 * @since 0.1.0
 */
public enum NettyTransport {

	/**
	 * Linux epoll (native).
	 */
	EPOLL("epoll", true),

	/**
	 * Linux io_uring (native).
	 */
	IO_URING("io_uring", true),

	/**
	 * BSD and macOS kqueue (native, without TCP_USER_TIMEOUT).
	 */
	KQUEUE("kqueue", false),

	/**
	 * Java NIO.
	 */
	NIO("nio", false);

	private final String displayName;

	private final boolean tcpUserTimeout;

	NettyTransport(String displayName, boolean tcpUserTimeout) {
		this.displayName = displayName;
		this.tcpUserTimeout = tcpUserTimeout;
	}

	/**
	 * Return whether Lettuce can set {@code TCP_USER_TIMEOUT} on this transport's
	 * sockets.
	 * @return whether TCP_USER_TIMEOUT is supported
	 */
	public boolean supportsTcpUserTimeout() {
		return this.tcpUserTimeout;
	}

	/**
	 * Return whether this is a native (JNI) transport.
	 * @return whether the transport is native
	 */
	public boolean isNative() {
		return this != NIO;
	}

	/**
	 * Return the name Netty and Lettuce use, e.g. {@code io_uring}.
	 * @return the name
	 */
	public String displayName() {
		return this.displayName;
	}

}
