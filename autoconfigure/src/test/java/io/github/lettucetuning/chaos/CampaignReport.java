package io.github.lettucetuning.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.lettucetuning.testsupport.chaos.InjectedFault;
import io.github.lettucetuning.testsupport.chaos.Invariants;
import io.github.lettucetuning.testsupport.chaos.OpKind;
import io.github.lettucetuning.testsupport.chaos.Operation;
import io.github.lettucetuning.testsupport.chaos.Outcome;
import io.github.lettucetuning.testsupport.chaos.Violation;

/**
 * Writes a campaign's results as markdown: per seed, the schedule, the faults injected
 * with the recovery after each, the operations by kind and outcome, and the violations,
 * stock Boot beside the starter.
 */
final class CampaignReport {

	private static final int LISTED_VIOLATIONS = 20;

	private CampaignReport() {
	}

	static Path write(Path file, List<CampaignRun.Result> results) throws IOException {
		StringBuilder text = new StringBuilder();
		text.append("# Fault campaign report\n\nWritten ")
			.append(Instant.now())
			.append(". Topology: standalone. ")
			.append("Bounds: ")
			.append(CampaignRun.REGULAR_BOUND.toMillis())
			.append(" ms per command, ")
			.append(CampaignRun.POP_TIMEOUT.plus(CampaignRun.COMMAND_TIMEOUT).toMillis())
			.append(" ms per blocking pop, traffic back within ")
			.append(CampaignRun.RECOVERY_BOUND.toMillis())
			.append(" ms of the last fault.\n\n");
		text.append(
				"| seed | setup | operations | failed | longest wait (blocking pops aside) | violations | by invariant | "
						+ "lost by server | applied after failure |\n")
			.append("|---|---|---|---|---|---|---|---|---|\n");
		for (CampaignRun.Result result : results) {
			Invariants.Verdict verdict = result.verdict();
			text.append("| ")
				.append(result.schedule().seed())
				.append(" | ")
				.append(result.setup())
				.append(" | ")
				.append(result.operations().size())
				.append(" | ")
				.append(result.operations().stream().filter((operation) -> operation.outcome() != Outcome.OK).count())
				.append(" | ")
				.append(longestWait(result.operations()))
				.append(" ms | ")
				.append(verdict.violations().size())
				.append(" | ")
				.append(byInvariant(verdict))
				.append(" | ")
				.append(verdict.lostByServer().size())
				.append(" | ")
				.append(verdict.appliedAfterFailure())
				.append(" |\n");
		}
		for (CampaignRun.Result result : results) {
			appendRun(text, result);
		}
		Files.createDirectories(file.getParent());
		Files.writeString(file, text);
		return file;
	}

	private static long longestWait(List<Operation> operations) {
		return operations.stream()
			.filter((operation) -> operation.ended() && !operation.kind().isBlocking())
			.mapToLong((operation) -> operation.waited(operation.endNanos()).toMillis())
			.max()
			.orElse(0);
	}

	private static String byInvariant(Invariants.Verdict verdict) {
		Map<String, Integer> counts = new TreeMap<>();
		for (Violation violation : verdict.violations()) {
			counts.merge(violation.invariant(), 1, Integer::sum);
		}
		return counts.isEmpty() ? "-" : counts.toString();
	}

	private static void appendRun(StringBuilder text, CampaignRun.Result result) {
		text.append("\n## Seed ").append(result.schedule().seed()).append(", ").append(result.setup()).append("\n\n");
		text.append("```\n").append(result.schedule().describe()).append("```\n\n");
		text.append("| fault | injected | recovery after heal |\n|---|---|---|\n");
		for (Invariants.Recovery recovery : result.verdict().recoveries()) {
			InjectedFault fault = recovery.fault();
			Duration time = recovery.time();
			text.append("| ")
				.append(fault.fault())
				.append(" | ")
				.append(fault.skipped() ? "skipped: " : "")
				.append(fault.note())
				.append(" | ")
				.append((time != null) ? time.toMillis() + " ms" : "-")
				.append(" |\n");
		}
		text.append("\n| operation |");
		for (Outcome outcome : Outcome.values()) {
			text.append(' ').append(outcome).append(" |");
		}
		text.append(" pending |\n|---|");
		text.append("---|".repeat(Outcome.values().length + 1)).append('\n');
		Map<OpKind, Map<Outcome, Integer>> counts = new EnumMap<>(OpKind.class);
		Map<OpKind, Integer> pending = new EnumMap<>(OpKind.class);
		for (Operation operation : result.operations()) {
			if (operation.outcome() == null) {
				pending.merge(operation.kind(), 1, Integer::sum);
			}
			else {
				counts.computeIfAbsent(operation.kind(), (kind) -> new EnumMap<>(Outcome.class))
					.merge(operation.outcome(), 1, Integer::sum);
			}
		}
		for (OpKind kind : OpKind.values()) {
			Map<Outcome, Integer> byOutcome = counts.getOrDefault(kind, Map.of());
			if (byOutcome.isEmpty() && !pending.containsKey(kind)) {
				continue;
			}
			text.append("| ").append(kind).append(" |");
			for (Outcome outcome : Outcome.values()) {
				text.append(' ').append(byOutcome.getOrDefault(outcome, 0)).append(" |");
			}
			text.append(' ').append(pending.getOrDefault(kind, 0)).append(" |\n");
		}
		List<Violation> violations = result.verdict().violations();
		text.append("\n").append(violations.size()).append(" violations");
		if (!violations.isEmpty()) {
			text.append(" (first ").append(Math.min(LISTED_VIOLATIONS, violations.size())).append("):\n\n");
			violations.stream()
				.limit(LISTED_VIOLATIONS)
				.forEach((violation) -> text.append("- ").append(violation).append('\n'));
		}
		else {
			text.append(".\n");
		}
		if (!result.verdict().lostByServer().isEmpty()) {
			text.append("\nAcknowledged writes lost by the server (after a fault that may lose writes): ")
				.append(result.verdict().lostByServer().size())
				.append('\n');
		}
	}

}
