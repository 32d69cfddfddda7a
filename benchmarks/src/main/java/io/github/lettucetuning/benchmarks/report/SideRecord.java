package io.github.lettucetuning.benchmarks.report;

/**
 * One measurement iteration as the harness recorded it in the side file.
 *
 * @param key the benchmark, parameters and threads
 * @param fork identifies the fork (JVM) the iteration ran in: its pid and start time
 * @param round the round of the fork when runs were repeated in rounds, {@code 0} if not
 * recorded
 * @param serverOpsPerSec SET and GET commands per second counted by redis-server
 * @param clientCpuUsPerOp client JVM CPU microseconds per server-counted command
 * @param serverCpuUsPerOp redis-server CPU microseconds per command
 * @param clientBytesPerOp bytes the client JVM's threads allocated per command
 * @param eventLoopCpuUsPerOp CPU microseconds of the client's event loops per command, NaN
 * if not recorded
 * @param eventLoopSleepsPerKOp voluntary context switches of the client's event loops per
 * thousand commands, NaN if not recorded
 * @param commandsPerRead commands per socket read of the server, NaN if not recorded
 * @param otherCpuCores cores used by anything else on the machine, NaN if unknown
 * @param redisVersion the server's version
 * @author lettuce-tuning
 */
record SideRecord(ResultKey key, String fork, int round, double serverOpsPerSec, double clientCpuUsPerOp,
		double serverCpuUsPerOp, double clientBytesPerOp, double eventLoopCpuUsPerOp, double eventLoopSleepsPerKOp,
		double commandsPerRead,
		double otherCpuCores, String redisVersion) {

	/**
	 * Return when the fork started.
	 * @return epoch milliseconds, {@code 0} if unknown
	 */
	long forkStart() {
		int dash = this.fork.lastIndexOf('-');
		try {
			return Long.parseLong(this.fork.substring(dash + 1));
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

}
