package io.github.lettucetuning.benchmarks.support;

/**
 * What redis-server reported at one instant: its SET, GET, MGET, EVAL and DEL call
 * counters, the CPU time it used and the socket reads and writes it did so far.
 *
 * @param setCalls {@code cmdstat_set} calls
 * @param getCalls {@code cmdstat_get} calls
 * @param mgetCalls {@code cmdstat_mget} calls: one per MGET, whatever its number of keys
 * @param evalCalls {@code cmdstat_eval} and {@code cmdstat_evalsha} calls: the near
 * cache's reads from Redis
 * @param delCalls {@code cmdstat_del} and {@code cmdstat_unlink} calls: Spring Cache's
 * evictions
 * @param cpuSeconds {@code used_cpu_sys + used_cpu_user}
 * @param reads {@code total_reads_processed}: socket reads, each handing over one or more
 * commands
 * @param writes {@code total_writes_processed}: socket writes of replies
 */
public record ServerSample(long setCalls, long getCalls, long mgetCalls, long evalCalls, long delCalls,
		double cpuSeconds, long reads, long writes) {

}
