package io.github.lettucetuning.benchmarks.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * Joins JMH's results with the side file's iterations on benchmark, parameters and
 * threads. Iterations of the side file during which other processes used more than
 * {@value #DISTURBED_CORES} cores are left out when their fork has undisturbed ones. Forks
 * are numbered by round: the recorded one, or their order in time.
 *
 * @author lettuce-tuning
 */
final class ResultJoiner {

	/**
	 * Load of other processes (cores) above which an iteration counts as disturbed. An
	 * undisturbed iteration shows up to about 0.1: softirq time of the loopback traffic and
	 * the JMH host JVM.
	 */
	static final double DISTURBED_CORES = 0.25;

	private ResultJoiner() {
	}

	/**
	 * Join.
	 * @param jmh JMH's benchmarks
	 * @param side the side file's measurement iterations
	 * @return one row per benchmark found in either, JMH's order first
	 */
	static List<ResultRow> join(List<JmhEntry> jmh, Map<ResultKey, List<SideRecord>> side) {
		Map<ResultKey, ResultRow> rows = new LinkedHashMap<>();
		for (JmhEntry entry : jmh) {
			ResultRow row = rows.computeIfAbsent(entry.key(), ResultRow::new);
			entry.scores().forEach((fork) -> row.addFork(Metric.JMH_OPS, fork));
			entry.allocNorm().forEach((fork) -> row.addFork(Metric.JMH_BYTES, fork));
		}
		for (Map.Entry<ResultKey, List<SideRecord>> entry : side.entrySet()) {
			ResultRow row = rows.computeIfAbsent(entry.getKey(), ResultRow::new);
			Map<String, List<SideRecord>> byFork = new LinkedHashMap<>();
			for (SideRecord record : entry.getValue()) {
				byFork.computeIfAbsent(record.fork(), (fork) -> new ArrayList<>()).add(record);
			}
			List<List<SideRecord>> forks = new ArrayList<>(byFork.values());
			forks.sort(Comparator.comparingInt((List<SideRecord> fork) -> fork.get(0).round())
				.thenComparingLong((fork) -> fork.get(0).forkStart()));
			for (List<SideRecord> all : forks) {
				int recordedRound = all.get(0).round();
				row.addRound((recordedRound > 0) ? recordedRound : row.rounds().size() + 1);
				List<SideRecord> fork = undisturbed(all);
				row.addDropped(all.size() - fork.size());
				row.addFork(Metric.SERVER_OPS, values(fork, SideRecord::serverOpsPerSec));
				row.addFork(Metric.CLIENT_CPU, values(fork, SideRecord::clientCpuUsPerOp));
				row.addFork(Metric.SERVER_CPU, values(fork, SideRecord::serverCpuUsPerOp));
				row.addFork(Metric.CLIENT_BYTES, values(fork, SideRecord::clientBytesPerOp));
				row.addFork(Metric.EVENT_LOOP_CPU, values(fork, SideRecord::eventLoopCpuUsPerOp));
				row.addFork(Metric.EVENT_LOOP_SLEEPS, values(fork, SideRecord::eventLoopSleepsPerKOp));
				row.addFork(Metric.COMMANDS_PER_READ, values(fork, SideRecord::commandsPerRead));
				row.addFork(Metric.OTHER_CPU, values(fork, SideRecord::otherCpuCores));
			}
		}
		return new ArrayList<>(rows.values());
	}

	private static List<SideRecord> undisturbed(List<SideRecord> records) {
		List<SideRecord> quiet = new ArrayList<>();
		for (SideRecord record : records) {
			if (Double.isNaN(record.otherCpuCores()) || record.otherCpuCores() <= DISTURBED_CORES) {
				quiet.add(record);
			}
		}
		return quiet.isEmpty() ? records : quiet;
	}

	private static List<Double> values(List<SideRecord> records, ToDoubleFunction<SideRecord> metric) {
		List<Double> values = new ArrayList<>(records.size());
		for (SideRecord record : records) {
			values.add(metric.applyAsDouble(record));
		}
		return values;
	}

}
