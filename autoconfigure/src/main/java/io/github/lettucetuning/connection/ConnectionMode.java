package io.github.lettucetuning.connection;

/**
 * How plain (non-dedicated) Redis commands are spread over native Lettuce connections.
 * Dedicated work (transactions, blocking commands, Pub/Sub, pipelining sessions) always
 * takes a connection of its own, whatever the mode.
 *
 * @since 0.1.0
 */
public enum ConnectionMode {

	/**
	 * One native connection, shared by every thread: Lettuce pipelines concurrent
	 * commands over it.
	 */
	SHARED,

	/**
	 * A fixed set of native connections, each shared by every thread, one picked per
	 * operation: pipelining plus parallel I/O on several event loops.
	 */
	MULTI,

	/**
	 * Thread-confined connections borrowed from a pool for every operation (the classic
	 * pool). Needs commons-pool2.
	 */
	POOLED

}
