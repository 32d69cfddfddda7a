package io.github.lettucetuning.testsupport.chaos;

/**
 * What a worker's operation was, as the journal records it.
 */
public enum OpKind {

	/**
	 * A synchronous {@code SET}.
	 */
	SYNC_SET(true, false),

	/**
	 * A synchronous {@code GET}.
	 */
	SYNC_GET(false, false),

	/**
	 * An asynchronous {@code SET}.
	 */
	ASYNC_SET(true, false),

	/**
	 * An asynchronous {@code GET}.
	 */
	ASYNC_GET(false, false),

	/**
	 * A reactive {@code SET}, possibly cancelled or timed out by the caller.
	 */
	REACTIVE_SET(true, false),

	/**
	 * A reactive {@code GET}, possibly cancelled or timed out by the caller.
	 */
	REACTIVE_GET(false, false),

	/**
	 * A {@code SET} sent in a pipeline.
	 */
	PIPELINED_SET(true, false),

	/**
	 * A {@code SET} inside {@code MULTI}/{@code EXEC}.
	 */
	TRANSACTIONAL_SET(true, false),

	/**
	 * An {@code RPUSH} feeding a blocking pop.
	 */
	PUSH(false, false),

	/**
	 * A {@code BLPOP}.
	 */
	BLOCKING_POP(false, true),

	/**
	 * A {@code PUBLISH}.
	 */
	PUBLISH(false, false);

	private final boolean write;

	private final boolean blocking;

	OpKind(boolean write, boolean blocking) {
		this.write = write;
		this.blocking = blocking;
	}

	/**
	 * Return whether the operation writes a string value whose fate the invariants check.
	 * @return whether it is a checked write
	 */
	public boolean isWrite() {
		return this.write;
	}

	/**
	 * Return whether the operation may block on the server on purpose.
	 * @return whether it is a blocking command
	 */
	public boolean isBlocking() {
		return this.blocking;
	}

	/**
	 * Return whether the operation reads a value whose origin the invariants check.
	 * @return whether it is a checked read
	 */
	public boolean isRead() {
		return this == SYNC_GET || this == ASYNC_GET || this == REACTIVE_GET || this == BLOCKING_POP;
	}

}
