package io.github.lettucetuning.benchmarks.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Writes the joined results, with the machine facts and verdicts, as one JSON document.
 *
 * @author lettuce-tuning
 */
final class ReportJson {

	private static final JsonMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

	private ReportJson() {
	}

	/**
	 * Write the document.
	 * @param file the file to write
	 * @param results the results
	 * @param facts the machine facts
	 * @param verdicts the verdicts
	 */
	static void write(Path file, ResultSet results, Map<String, String> facts, List<Verdict> verdicts) {
		Map<String, Object> document = new LinkedHashMap<>();
		document.put("machine", facts);
		document.put("baseline", SetupNames.BASELINE);
		document.put("verdicts", verdicts);
		List<Object> rows = new ArrayList<>();
		for (ResultRow row : results.rows()) {
			rows.add(row(row, results));
		}
		document.put("results", rows);
		MAPPER.writeValue(file.toFile(), document);
	}

	private static Map<String, Object> row(ResultRow row, ResultSet results) {
		ResultKey key = row.key();
		Map<String, Object> json = new LinkedHashMap<>();
		json.put("suite", key.benchmarkClass());
		json.put("benchmark", key.benchmark());
		json.put("method", key.method());
		json.put("params", key.params());
		json.put("description", SetupNames.describe(key.setup()));
		json.put("threads", key.threads());
		json.put("forks", row.forks());
		Map<String, Object> metrics = new LinkedHashMap<>();
		for (Metric metric : Metric.values()) {
			Spread spread = row.spread(metric);
			if (spread.isEmpty()) {
				continue;
			}
			Map<String, Object> values = new LinkedHashMap<>();
			values.put("median", spread.median());
			values.put("min", spread.min());
			values.put("max", spread.max());
			values.put("forkMeans", row.forkMeans(metric));
			values.put("iterations", row.iterations(metric));
			metrics.put(metric.jsonName(), values);
		}
		json.put("metrics", metrics);
		if (!key.benchmarkClass().equals(ResultSet.TIMER)) {
			Map<String, Object> ratios = new LinkedHashMap<>();
			for (Metric metric : List.of(Metric.SERVER_OPS, Metric.JMH_BYTES, Metric.CLIENT_CPU)) {
				double baseline = results.spread(ResultSet.MODES, key.method(), SetupNames.BASELINE, key.threads(),
						metric).median();
				double value = row.value(metric);
				if (!Double.isNaN(baseline) && !Double.isNaN(value) && baseline != 0) {
					ratios.put(metric.jsonName(), value / baseline);
				}
			}
			json.put("ratioToBaseline", ratios);
		}
		return json;
	}

}
