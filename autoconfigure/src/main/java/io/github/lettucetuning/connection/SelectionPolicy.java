package io.github.lettucetuning.connection;

/**
 * How {@link ConnectionMode#MULTI} picks one member of its connection set per operation.
 *
 * @since 0.1.0
 */
public enum SelectionPolicy {

	/**
	 * Members in turn, spreading load evenly.
	 */
	ROUND_ROBIN,

	/**
	 * A thread always gets the same member, so per-thread command order holds, also for
	 * asynchronous pipelines.
	 */
	THREAD_AFFINITY,

	/**
	 * The member with the fewest commands in flight at the time of the pick.
	 */
	LEAST_IN_FLIGHT

}
