package io.github.lettucetuning.testsupport.chaos;

/**
 * How an operation ended.
 */
public enum Outcome {

	/**
	 * The server answered.
	 */
	OK,

	/**
	 * Failed at once because the server was known to be unreachable (the outage guard's
	 * fail-fast): the command was never sent, or never will be.
	 */
	FAIL_FAST,

	/**
	 * Failed because the server stopped answering while the command waited: the server
	 * may still run it when it wakes up.
	 */
	STALLED,

	/**
	 * Failed with a connection error: refused, reset, closed. A command written before
	 * the connection broke may have run before it did (Redis had read it; the reset
	 * discarded the reply), never after.
	 */
	CONNECTION_ERROR,

	/**
	 * The command timed out: the server may still run it.
	 */
	TIMEOUT,

	/**
	 * The caller cancelled it or gave up on it (a reactive cancel or timeout): the server
	 * may still run it.
	 */
	CANCELLED,

	/**
	 * Any other failure.
	 */
	OTHER_ERROR;

	/**
	 * Return whether a write that ended so must never be applied by the server.
	 * @return whether the caller was told the write failed before it was sent
	 */
	public boolean forbidsApplication() {
		return this == FAIL_FAST;
	}

	/**
	 * Return whether a write that ended so may have been applied before its caller was
	 * told, but must not be applied after.
	 * @return whether only a late application breaks the invariant
	 */
	public boolean forbidsLateApplication() {
		return this == CONNECTION_ERROR;
	}

	/**
	 * Return whether a write that ended so may have been applied even though the caller
	 * saw it fail (the documented stall case, a timeout, a cancel).
	 * @return whether its application is counted apart
	 */
	public boolean mayBeApplied() {
		return this == STALLED || this == TIMEOUT || this == CANCELLED || this == OTHER_ERROR;
	}

}
