package io.github.lettucetuning.benchmarks.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Joins JMH's JSON results ({@code jmh-*.json}) with the harness's side files
 * ({@code side-*.jsonl}) of a results directory, and writes {@code modes.json} there, and
 * {@code results.md} with PNG charts into a docs directory. A {@code notes.md} in the
 * results directory (observations that need a person) is appended to the page.
 * <pre class="code">
 * java -cp lettuce-tuning-benchmarks.jar io.github.lettucetuning.benchmarks.report.ReportMain \
 *     benchmarks/results docs/benchmarks
 * </pre>
 *
 * @author lettuce-tuning
 */
public final class ReportMain {

	private ReportMain() {
	}

	/**
	 * Write the report.
	 * @param args the results directory and the docs directory (defaults
	 * {@code benchmarks/results} and {@code docs/benchmarks})
	 * @throws IOException if a file cannot be read or written
	 */
	public static void main(String[] args) throws IOException {
		System.setProperty("java.awt.headless", "true");
		Path results = Path.of((args.length > 0) ? args[0] : "benchmarks/results");
		Path docs = Path.of((args.length > 1) ? args[1] : "docs/benchmarks");
		List<Path> jmhFiles = files(results, "jmh-", ".json");
		List<Path> sideFiles = files(results, "side-", ".jsonl");
		if (jmhFiles.isEmpty() && sideFiles.isEmpty()) {
			throw new IllegalStateException("No jmh-*.json or side-*.jsonl files in " + results.toAbsolutePath());
		}
		List<JmhEntry> jmh = JmhResults.read(jmhFiles);
		Map<ResultKey, List<SideRecord>> side = SideRecords.read(sideFiles);
		ResultSet resultSet = new ResultSet(ResultJoiner.join(jmh, side));
		Map<String, String> facts = MachineFacts.collect(jmh, side, latestDate(jmhFiles, sideFiles));
		settings(jmh, facts);
		List<Verdict> verdicts = Verdicts.evaluate(resultSet);
		Files.createDirectories(docs);
		List<String> charts = new Charts(resultSet, docs).draw();
		ReportJson.write(results.resolve("modes.json"), resultSet, facts, verdicts);
		Path notesFile = results.resolve("notes.md");
		String notes = Files.isRegularFile(notesFile) ? Files.readString(notesFile, StandardCharsets.UTF_8) : "";
		String page = new MarkdownPage(resultSet, facts, verdicts, charts, notes).render();
		Files.writeString(docs.resolve("results.md"), page, StandardCharsets.UTF_8);
		System.out.println("Wrote " + results.resolve("modes.json") + ", " + docs.resolve("results.md") + " and "
				+ charts.size() + " charts");
		for (Verdict verdict : verdicts) {
			System.out.println(verdict.outcome() + ": " + verdict.target() + ": " + verdict.measured());
		}
	}

	// JMH iteration settings of each benchmark class, as run.
	private static void settings(List<JmhEntry> jmh, Map<String, String> facts) {
		for (JmhEntry entry : jmh) {
			facts.putIfAbsent("JMH settings, " + entry.key().benchmarkClass(), entry.settings() + " per fork");
		}
	}

	private static List<Path> files(Path directory, String prefix, String suffix) throws IOException {
		if (!Files.isDirectory(directory)) {
			return List.of();
		}
		try (Stream<Path> files = Files.list(directory)) {
			return files.filter((file) -> {
				String name = file.getFileName().toString();
				return name.startsWith(prefix) && name.endsWith(suffix);
			}).sorted().toList();
		}
	}

	private static LocalDate latestDate(List<Path> jmhFiles, List<Path> sideFiles) throws IOException {
		long latest = 0;
		for (List<Path> files : List.of(jmhFiles, sideFiles)) {
			for (Path file : files) {
				latest = Math.max(latest, Files.getLastModifiedTime(file).toMillis());
			}
		}
		return Instant.ofEpochMilli(latest).atZone(ZoneId.systemDefault()).toLocalDate();
	}

}
