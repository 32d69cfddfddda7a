package io.github.lettucetuning.benchmarks.support;

import java.util.Map;

import io.github.lettucetuning.testsupport.server.RedisInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RespClient;
import org.jspecify.annotations.Nullable;

/**
 * Samples redis-server's {@code INFO commandstats}, {@code INFO cpu} and
 * {@code INFO stats} over one admin connection kept open for the trial.
 */
public final class ServerCounter implements AutoCloseable {

	private final RespClient admin;

	private final String redisVersion;

	/**
	 * Open the admin connection to a node.
	 * @param node the node to sample
	 */
	public ServerCounter(RedisNode node) {
		this.admin = node.connect();
		this.redisVersion = info("server").getOrDefault("redis_version", "unknown");
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
	 * @return the sample
	 */
	public ServerSample sample() {
		Map<String, String> commands = info("commandstats");
		Map<String, String> cpu = info("cpu");
		Map<String, String> stats = info("stats");
		double cpuSeconds = Double.parseDouble(cpu.getOrDefault("used_cpu_sys", "0"))
				+ Double.parseDouble(cpu.getOrDefault("used_cpu_user", "0"));
		return new ServerSample(calls(commands.get("cmdstat_set")), calls(commands.get("cmdstat_get")),
				calls(commands.get("cmdstat_mget")), cpuSeconds,
				Long.parseLong(stats.getOrDefault("total_reads_processed", "0")),
				Long.parseLong(stats.getOrDefault("total_writes_processed", "0")));
	}

	private Map<String, String> info(String section) {
		return RedisInfo.parse(this.admin.commandAsString("INFO", section));
	}

	// "calls=123,usec=456,usec_per_call=3.70,rejected_calls=0,failed_calls=0"
	static long calls(@Nullable String commandStats) {
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
		this.admin.close();
	}

}
