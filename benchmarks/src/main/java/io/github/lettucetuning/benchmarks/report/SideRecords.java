package io.github.lettucetuning.benchmarks.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the measurement iterations of the harness's side files (JSON lines); warmup
 * iterations are skipped.
 *
 * @author lettuce-tuning
 */
final class SideRecords {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private SideRecords() {
	}

	/**
	 * Read side files.
	 * @param files the files
	 * @return the measurement iterations by benchmark, parameters and threads
	 */
	static Map<ResultKey, List<SideRecord>> read(List<Path> files) {
		Map<ResultKey, List<SideRecord>> records = new LinkedHashMap<>();
		for (Path file : files) {
			for (String line : lines(file)) {
				if (line.isBlank()) {
					continue;
				}
				JsonNode node = MAPPER.readTree(line);
				if (!"measurement".equals(node.path("kind").asString(""))) {
					continue;
				}
				SideRecord record = record(node);
				records.computeIfAbsent(record.key(), (key) -> new ArrayList<>()).add(record);
			}
		}
		return records;
	}

	private static List<String> lines(Path file) {
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static SideRecord record(JsonNode node) {
		Map<String, String> params = new LinkedHashMap<>();
		for (Map.Entry<String, JsonNode> param : node.path("params").properties()) {
			params.put(param.getKey(), param.getValue().asString());
		}
		ResultKey key = new ResultKey(node.path("benchmark").asString(), params, node.path("threads").asInt());
		return new SideRecord(key, node.path("fork").asString(), node.path("round").asInt(0),
				node.path("serverOpsPerSec").asDouble(),
				node.path("clientCpuUsPerOp").asDouble(), node.path("serverCpuUsPerOp").asDouble(),
				node.path("clientBytesPerOp").asDouble(), node.path("eventLoopCpuUsPerOp").asDouble(Double.NaN),
				node.path("eventLoopSleepsPerKOp").asDouble(Double.NaN),
				node.path("commandsPerRead").asDouble(Double.NaN), node.path("otherCpuCores").asDouble(Double.NaN),
				node.path("redisVersion").asString(""));
	}

}
