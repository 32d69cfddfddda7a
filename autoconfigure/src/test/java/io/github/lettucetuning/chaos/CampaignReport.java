package io.github.lettucetuning.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.github.lettucetuning.testsupport.chaos.InjectedFault;
import io.github.lettucetuning.testsupport.chaos.Invariants;
import io.github.lettucetuning.testsupport.chaos.OpKind;
import io.github.lettucetuning.testsupport.chaos.Operation;
import io.github.lettucetuning.testsupport.chaos.Outcome;
import io.github.lettucetuning.testsupport.chaos.Violation;
import org.jspecify.annotations.Nullable;

/**
 * Writes a campaign's results as markdown: per seed, the schedule, the faults injected
 * with the recovery after each, the operations by kind and outcome, and the violations,
 * stock Boot beside the starter.
 */
final class CampaignReport {

	private static final int LISTED_VIOLATIONS = 10;

	private CampaignReport() {
	}

	static Path write(Path file, List<CampaignRun.Result> results) throws IOException {
		StringBuilder text = new StringBuilder();
		String topology = results.isEmpty() ? "-" : results.get(0).topology().name().toLowerCase(Locale.ROOT);
		text.append("# Fault campaign report\n\nWritten ")
			.append(Instant.now())
			.append(". Topology: ")
			.append(topology)
			.append(". ")
			.append("Bounds: ")
			.append(CampaignRun.REGULAR_BOUND.toMillis())
			.append(" ms per command, ")
			.append(CampaignRun.POP_TIMEOUT.plus(CampaignRun.COMMAND_TIMEOUT).toMillis())
			.append(" ms per blocking pop, traffic back within ")
			.append(CampaignRun.RECOVERY_BOUND.toMillis())
			.append(" ms of the last fault.\n\n");
		text.append(
				"| seed | setup | operations | failed | longest wait (blocking pops aside) | violations | by invariant | "
						+ "lost by a restart | lost by a failover | applied after failure | messages published / received |\n")
			.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
		for (CampaignRun.Result result : results) {
			Invariants.Verdict verdict = result.verdict();
			text.append("| ")
				.append(result.schedule().seed())
				.append(" | ")
				.append(result.setup().label())
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
				.append(verdict.lostByFailover().size())
				.append(" | ")
				.append(verdict.appliedAfterFailure())
				.append(" | ")
				.append(published(result.operations()))
				.append(" / ")
				.append(result.messagesReceived())
				.append(" |\n");
		}
		for (CampaignRun.Result result : results) {
			appendRun(text, result);
		}
		Files.createDirectories(file.getParent());
		Files.writeString(file, text);
		return file;
	}

	// What callers were told, most frequent first, numbers masked so that one kind of
	// error counts once
	private static void appendErrors(StringBuilder text, List<Operation> operations) {
		Map<String, Integer> errors = new TreeMap<>();
		for (Operation operation : operations) {
			if (operation.error() != null && operation.outcome() != Outcome.CANCELLED) {
				String error = operation.outcome() + " " + operation.error().replaceAll("[0-9]+", "#");
				errors.merge((error.length() > 300) ? error.substring(0, 300) + "…" : error, 1, Integer::sum);
			}
		}
		if (errors.isEmpty()) {
			return;
		}
		text.append("\nMost frequent errors:\n\n");
		errors.entrySet()
			.stream()
			.sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
			.limit(6)
			.forEach((entry) -> text.append("- ")
				.append(entry.getValue())
				.append(" × `")
				.append(entry.getKey())
				.append("`\n"));
	}

	// When the operation started, on the schedule's clock, to find the faults around it
	private static String at(@Nullable Operation operation, long originNanos) {
		return (operation != null) ? "at " + (operation.startNanos() - originNanos) / 1_000_000 + " ms: " : "";
	}

	private static long published(List<Operation> operations) {
		return operations.stream()
			.filter((operation) -> operation.kind() == OpKind.PUBLISH && operation.outcome() == Outcome.OK)
			.count();
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
		text.append("\n## Seed ")
			.append(result.schedule().seed())
			.append(", ")
			.append(result.setup().label())
			.append("\n\n");
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
		appendErrors(text, result.operations());
		if (result.drainedMillis() >= 0) {
			text.append("\nTimer tasks and borrowed connections drained ")
				.append(result.drainedMillis())
				.append(" ms after the traffic stopped.\n");
		}
		if (result.refreshTimeouts() > 0) {
			text.append("\nLettuce's cluster topology refresh left ")
				.append(result.refreshTimeouts())
				.append(" request timeouts scheduled (it never cancels them; they run out on their own).\n");
		}
		List<Violation> violations = result.verdict().violations();
		text.append("\n").append(violations.size()).append(" violations");
		if (!violations.isEmpty()) {
			text.append(" (the first ").append(LISTED_VIOLATIONS).append(" of each invariant):\n\n");
			Map<String, Integer> listed = new TreeMap<>();
			for (Violation violation : violations) {
				if (listed.merge(violation.invariant(), 1, Integer::sum) <= LISTED_VIOLATIONS) {
					text.append("- ")
						.append(at(violation.operation(), result.originNanos()))
						.append(violation)
						.append('\n');
				}
			}
		}
		else {
			text.append(".\n");
		}
		if (!result.verdict().lostByServer().isEmpty()) {
			text.append("\nAcknowledged writes lost by a restart without persistence: ")
				.append(result.verdict().lostByServer().size())
				.append('\n');
		}
		if (!result.verdict().lostByFailover().isEmpty()) {
			text.append("\nAcknowledged writes lost by a failover before the replica confirmed them: ")
				.append(result.verdict().lostByFailover().size())
				.append('\n');
		}
	}

}
