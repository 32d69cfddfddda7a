package io.github.lettucetuning.benchmarks.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads JMH's JSON result files ({@code -rf json}).
 *
 * @author lettuce-tuning
 */
final class JmhResults {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private JmhResults() {
	}

	/**
	 * Read the benchmarks of several files; the forks of a benchmark found in more than
	 * one file (runs repeated with {@code -f 1}) are put together.
	 * @param files the JMH result files
	 * @return the benchmarks, in the order first seen
	 */
	static List<JmhEntry> read(List<Path> files) {
		Map<ResultKey, JmhEntry> entries = new LinkedHashMap<>();
		for (Path file : files) {
			for (JsonNode node : MAPPER.readTree(file.toFile()).values()) {
				JmhEntry entry = entry(node);
				entries.merge(entry.key(), entry, JmhResults::merge);
			}
		}
		return new ArrayList<>(entries.values());
	}

	private static JmhEntry entry(JsonNode node) {
		Map<String, String> params = new LinkedHashMap<>();
		for (Map.Entry<String, JsonNode> param : node.path("params").properties()) {
			params.put(param.getKey(), param.getValue().asString());
		}
		ResultKey key = new ResultKey(node.path("benchmark").asString(), params, node.path("threads").asInt());
		JsonNode primary = node.path("primaryMetric");
		JsonNode alloc = node.path("secondaryMetrics").path("gc.alloc.rate.norm");
		return new JmhEntry(key, primary.path("scoreUnit").asString(), rawData(primary), rawData(alloc),
				node.path("jdkVersion").asString(""),
				node.path("vmName").asString("") + " " + node.path("vmVersion").asString(""), settings(node));
	}

	private static String settings(JsonNode node) {
		return node.path("warmupIterations").asInt() + " x " + node.path("warmupTime").asString("?") + " warmup + "
				+ node.path("measurementIterations").asInt() + " x " + node.path("measurementTime").asString("?")
				+ " measurement";
	}

	private static List<List<Double>> rawData(JsonNode metric) {
		List<List<Double>> forks = new ArrayList<>();
		for (JsonNode fork : metric.path("rawData").values()) {
			List<Double> iterations = new ArrayList<>();
			for (JsonNode value : fork.values()) {
				iterations.add(value.asDouble(Double.NaN));
			}
			forks.add(iterations);
		}
		return forks;
	}

	private static JmhEntry merge(JmhEntry first, JmhEntry second) {
		List<List<Double>> scores = new ArrayList<>(first.scores());
		scores.addAll(second.scores());
		List<List<Double>> alloc = new ArrayList<>(first.allocNorm());
		alloc.addAll(second.allocNorm());
		return new JmhEntry(first.key(), first.scoreUnit(), scores, alloc, first.jdkVersion(), first.vm(),
				first.settings());
	}

}
