package io.github.lettucetuning.benchmarks.report;

/**
 * The figures reported per benchmark.
 *
 * @author lettuce-tuning
 */
enum Metric {

	/**
	 * JMH's score in operations per second.
	 */
	JMH_OPS("jmhOpsPerSec"),

	/**
	 * JMH's {@code gc.alloc.rate.norm}: bytes allocated per JMH-counted operation.
	 */
	JMH_BYTES("jmhBytesPerOp"),

	/**
	 * SET and GET commands per second counted by redis-server.
	 */
	SERVER_OPS("serverOpsPerSec"),

	/**
	 * Client JVM CPU microseconds per server-counted command.
	 */
	CLIENT_CPU("clientCpuUsPerOp"),

	/**
	 * redis-server CPU microseconds per command.
	 */
	SERVER_CPU("serverCpuUsPerOp"),

	/**
	 * Bytes the client JVM's threads allocated per server-counted command.
	 */
	CLIENT_BYTES("clientBytesPerOp"),

	/**
	 * CPU microseconds of the client's Netty event-loop threads per command.
	 */
	EVENT_LOOP_CPU("eventLoopCpuUsPerOp"),

	/**
	 * Times the client's event loops went to sleep (voluntary context switches) per
	 * thousand commands: each costs the next writer a wake-up.
	 */
	EVENT_LOOP_SLEEPS("eventLoopSleepsPerKOp"),

	/**
	 * Commands per socket read of redis-server: how well commands are batched on the way
	 * in.
	 */
	COMMANDS_PER_READ("commandsPerRead"),

	/**
	 * Cores used by other processes of the machine during the iteration.
	 */
	OTHER_CPU("otherCpuCores");

	private final String jsonName;

	Metric(String jsonName) {
		this.jsonName = jsonName;
	}

	String jsonName() {
		return this.jsonName;
	}

}
