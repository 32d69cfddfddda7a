package io.github.lettucetuning.benchmarks.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.lettucetuning.testsupport.server.RedisInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RespClient;
import org.jspecify.annotations.Nullable;

/**
 * Samples redis-server's {@code INFO commandstats}, {@code INFO cpu} and
 * {@code INFO stats} over admin connections kept open for the trial: one server, or every
 * node of a cluster. In a cluster, commands and socket reads and writes are summed over
 * the masters only (a replica counts the writes its master replicates to it, not client
 * commands), CPU time over every node (the replicas' share of the work is part of what a
 * command costs the cluster).
 */
public final class ServerCounter implements AutoCloseable {

	private final List<RespClient> counted = new ArrayList<>();

	private final List<RespClient> cpuOnly = new ArrayList<>();

	private final String redisVersion;

	/**
	 * Open the admin connection to a node.
	 * @param node the node to sample
	 */
	public ServerCounter(RedisNode node) {
		this(List.of(node), List.of());
	}

	/**
	 * Open admin connections to the nodes of a cluster.
	 * @param masters the nodes whose commands are counted: the masters
	 * @param replicas the nodes whose CPU time is counted too: the replicas
	 */
	public ServerCounter(List<RedisNode> masters, List<RedisNode> replicas) {
		try {
			masters.forEach((node) -> this.counted.add(node.connect()));
			replicas.forEach((node) -> this.cpuOnly.add(node.connect()));
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
		this.redisVersion = info(this.counted.get(0), "server").getOrDefault("redis_version", "unknown");
	}

	/**
	 * Return the server's version.
	 * @return the {@code redis_version} field of {@code INFO server}
	 */
	public String redisVersion() {
		return this.redisVersion;
	}

	/**
	 * Sample the counters now.
	 * @return the sample, summed over the nodes
	 */
	public ServerSample sample() {
		long sets = 0;
		long gets = 0;
		long mgets = 0;
		long evals = 0;
		long dels = 0;
		long reads = 0;
		long writes = 0;
		double cpuSeconds = 0;
		for (RespClient admin : this.counted) {
			Map<String, String> commands = info(admin, "commandstats");
			Map<String, String> stats = info(admin, "stats");
			sets += calls(commands.get("cmdstat_set"));
			gets += calls(commands.get("cmdstat_get"));
			mgets += calls(commands.get("cmdstat_mget"));
			evals += calls(commands.get("cmdstat_eval")) + calls(commands.get("cmdstat_evalsha"));
			dels += calls(commands.get("cmdstat_del")) + calls(commands.get("cmdstat_unlink"));
			reads += Long.parseLong(stats.getOrDefault("total_reads_processed", "0"));
			writes += Long.parseLong(stats.getOrDefault("total_writes_processed", "0"));
			cpuSeconds += cpuSeconds(admin);
		}
		for (RespClient admin : this.cpuOnly) {
			cpuSeconds += cpuSeconds(admin);
		}
		return new ServerSample(sets, gets, mgets, evals, dels, cpuSeconds, reads, writes);
	}

	private static double cpuSeconds(RespClient admin) {
		Map<String, String> cpu = info(admin, "cpu");
		return Double.parseDouble(cpu.getOrDefault("used_cpu_sys", "0"))
				+ Double.parseDouble(cpu.getOrDefault("used_cpu_user", "0"));
	}

	private static Map<String, String> info(RespClient admin, String section) {
		return RedisInfo.parse(admin.commandAsString("INFO", section));
	}

	/**
	 * Read the number of calls from a command's line of {@code INFO commandstats}, such
	 * as {@code calls=123,usec=456,usec_per_call=3.70,rejected_calls=0,failed_calls=0}.
	 * @param commandStats the line's value, or null when the server has not run the
	 * command
	 * @return the number of calls
	 */
	public static long calls(@Nullable String commandStats) {
		if (commandStats == null) {
			return 0;
		}
		for (String field : commandStats.split(",")) {
			if (field.startsWith("calls=")) {
				return Long.parseLong(field.substring("calls=".length()));
			}
		}
		return 0;
	}

	@Override
	public void close() {
		this.counted.forEach(RespClient::close);
		this.cpuOnly.forEach(RespClient::close);
	}

}
