package io.github.lettucetuning.benchmarks.support;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Waits before measurement iterations for other processes to leave the machine alone (see
 * {@link QuietMachine}), then samples the server and the client JVM at the start and the
 * end of each iteration and appends what happened in between to the side file:
 * server-counted SET, GET, MGET, EVAL and DEL commands per second, client and server CPU
 * time per command, client bytes allocated per command and, where the benchmark records
 * them, latency percentiles and the same figures per operation recorded (the near-cache
 * cells, whose hits send no command).
 */
public final class IterationRecorder implements AutoCloseable {

	/**
	 * System property numbering the round a fork belongs to, when a script repeats
	 * one-fork runs.
	 */
	public static final String ROUND_PROPERTY = "lettuce.bench.round";

	private final ServerCounter server;

	private final SideFile sideFile;

	private final QuietMachine quietMachine;

	private final OperationLatencies latencies;

	private double quietWaitSeconds;

	private final Map<String, Object> trial;

	private int warmups;

	private int measurements;

	private @Nullable String kind;

	private int index;

	private @Nullable ServerSample serverStart;

	private @Nullable ClientSample clientStart;

	/**
	 * Create a recorder for one trial.
	 * @param server the counters of the trial's server
	 * @param benchmark the JMH parameters of the trial
	 * @param sideFile where records go
	 * @param serverPids the pids of the servers (one, or every node of a cluster), to
	 * tell their CPU use from that of others
	 * @param latencies the latencies the benchmark records, reported per iteration
	 */
	public IterationRecorder(ServerCounter server, BenchmarkParams benchmark, SideFile sideFile, List<Long> serverPids,
			OperationLatencies latencies) {
		this.server = server;
		this.latencies = latencies;
		this.sideFile = sideFile;
		this.quietMachine = new QuietMachine(serverPids);
		this.trial = trialFields(benchmark, server.redisVersion());
	}

	private static Map<String, Object> trialFields(BenchmarkParams benchmark, String redisVersion) {
		Map<String, Object> fields = new LinkedHashMap<>();
		fields.put("benchmark", benchmark.getBenchmark());
		Map<String, String> params = new TreeMap<>();
		for (String key : benchmark.getParamsKeys()) {
			params.put(key, benchmark.getParam(key));
		}
		fields.put("params", params);
		fields.put("threads", benchmark.getThreads());
		fields.put("fork", ProcessHandle.current().pid() + "-" + System.currentTimeMillis());
		// Set by scripts that repeat one-fork runs in rounds, to pair forks of the same
		// round
		fields.put("round", Integer.getInteger(ROUND_PROPERTY, 0));
		fields.put("redisVersion", redisVersion);
		return fields;
	}

	/**
	 * Start an iteration.
	 * @param iteration the JMH parameters of the iteration
	 */
	public void begin(IterationParams iteration) {
		boolean warmup = iteration.getType() == IterationType.WARMUP;
		this.kind = warmup ? "warmup" : "measurement";
		this.index = warmup ? ++this.warmups : ++this.measurements;
		this.quietWaitSeconds = warmup ? 0 : this.quietMachine.await();
		this.serverStart = this.server.sample();
		this.clientStart = ClientSample.now();
		this.latencies.reset();
	}

	/**
	 * End the iteration started last and append its record.
	 */
	public void end() {
		ClientSample clientEnd = ClientSample.now();
		ServerSample serverEnd = this.server.sample();
		ServerSample serverBegin = this.serverStart;
		ClientSample clientBegin = this.clientStart;
		if (serverBegin == null || clientBegin == null) {
			return;
		}
		double seconds = clientEnd.secondsSince(clientBegin);
		long sets = serverEnd.setCalls() - serverBegin.setCalls();
		long gets = serverEnd.getCalls() - serverBegin.getCalls();
		long mgets = serverEnd.mgetCalls() - serverBegin.mgetCalls();
		long evals = serverEnd.evalCalls() - serverBegin.evalCalls();
		long dels = serverEnd.delCalls() - serverBegin.delCalls();
		long sent = commandsSent(sets, gets, mgets, evals, dels);
		long commands = Math.max(1, sent);
		double clientCpuMicros = clientEnd.cpuNanosSince(clientBegin) / 1e3;
		double serverCpuMicros = (serverEnd.cpuSeconds() - serverBegin.cpuSeconds()) * 1e6;
		Map<String, Object> record = new LinkedHashMap<>(this.trial);
		record.put("kind", this.kind);
		record.put("iteration", this.index);
		record.put("seconds", seconds);
		record.put("quietWaitSeconds", this.quietWaitSeconds);
		record.put("setCalls", sets);
		record.put("getCalls", gets);
		record.put("mgetCalls", mgets);
		record.put("evalCalls", evals);
		record.put("delCalls", dels);
		record.put("serverOpsPerSec", sent / seconds);
		record.put("clientCpuUsPerOp", clientCpuMicros / commands);
		record.put("serverCpuUsPerOp", serverCpuMicros / commands);
		record.put("clientBytesPerOp", (double) clientEnd.allocatedBytesSince(clientBegin) / commands);
		record.put("eventLoopCpuUsPerOp", clientEnd.eventLoopCpuNanosSince(clientBegin) / 1e3 / commands);
		long sleeps = clientEnd.eventLoopSleepsSince(clientBegin);
		if (sleeps >= 0) {
			record.put("eventLoopSleepsPerKOp", sleeps * 1000.0 / commands);
		}
		long reads = serverEnd.reads() - serverBegin.reads();
		long writes = serverEnd.writes() - serverBegin.writes();
		record.put("commandsPerRead", (double) sent / Math.max(1, reads));
		record.put("commandsPerWrite", (double) sent / Math.max(1, writes));
		record.put("clientCpuCores", clientCpuMicros / 1e6 / seconds);
		record.put("serverCpuCores", serverCpuMicros / 1e6 / seconds);
		long machineBusy = clientEnd.machineBusyNanosSince(clientBegin);
		if (machineBusy >= 0) {
			// Everything else that ran: other processes, the JMH host JVM, unattributed
			// interrupts
			double otherCores = (machineBusy / 1e3 - clientCpuMicros - serverCpuMicros) / 1e6 / seconds;
			record.put("otherCpuCores", Math.max(0, otherCores));
		}
		this.latencies.addTo(record);
		addPerClientOperation(record, seconds, sent, clientCpuMicros, serverCpuMicros);
		this.sideFile.append(record);
		this.serverStart = null;
		this.clientStart = null;
	}

	// Redis counts the commands a script calls too: each EVAL the benchmarks send is the
	// near cache's read, which calls GET once, so GETs sent by clients are the GETs
	// counted less the EVALs. Without EVALs and DELs (every cell but the near-cache
	// ones), the count is SET + GET + MGET as before.
	static long commandsSent(long sets, long gets, long mgets, long evals, long dels) {
		return sets + Math.max(0, gets - evals) + mgets + evals + dels;
	}

	// The near-cache cells serve most operations without a command: their figures are
	// per operation the caller made (one latency recorded each), not per command.
	private static void addPerClientOperation(Map<String, Object> record, double seconds, long commands,
			double clientCpuMicros, double serverCpuMicros) {
		if (!(record.get("latencyCount") instanceof Long operations) || operations == 0) {
			return;
		}
		record.put("clientOpsPerSec", operations / seconds);
		record.put("commandsPerClientOp", (double) commands / operations);
		record.put("clientCpuUsPerClientOp", clientCpuMicros / operations);
		record.put("serverCpuUsPerClientOp", serverCpuMicros / operations);
	}

	@Override
	public void close() {
		this.server.close();
	}

}
