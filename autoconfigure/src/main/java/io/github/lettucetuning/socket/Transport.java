package io.github.lettucetuning.socket;

/**
 * The Netty transport an application asks Lettuce to use.
 *
 * @since 0.1.0
 */
public enum Transport {

	/**
	 * Lettuce's own choice: epoll, else kqueue, else io_uring, else NIO, as far as the
	 * native libraries are on the classpath and load.
	 */
	AUTO,

	/**
	 * Linux epoll; fails startup when it is not available.
	 */
	EPOLL,

	/**
	 * Linux io_uring; fails startup when it is not available.
	 */
	IO_URING,

	/**
	 * Java NIO, available everywhere; no TCP_USER_TIMEOUT.
	 */
	NIO

}
