package io.github.lettucetuning.benchmarks.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Summarises paired rounds ({@code benchmarks/scripts/paired-shared-vs-stock.sh}): per
 * round, the server-counted SET rate of each setup (mean of its measurement iterations)
 * and their ratio; then the median ratio and how many rounds the first setup won.
 *
 * @author lettuce-tuning
 */
public final class PairedSummary {

	private PairedSummary() {
	}

	/**
	 * Print the summary.
	 * @param args the side file, the setup measured, the reference setup
	 * @throws IOException if the side file cannot be read
	 */
	public static void main(String[] args) throws IOException {
		Path sideFile = Path.of(args[0]);
		String setup = args[1];
		String reference = args[2];
		Map<Integer, double[]> rounds = rates(sideFile, setup, reference);
		List<Double> ratios = new ArrayList<>();
		System.out.printf(Locale.ROOT, "round  %s  %s  ratio%n", setup, reference);
		rounds.forEach((round, rates) -> {
			if (rates[1] > 0 && rates[3] > 0) {
				double measured = rates[0] / rates[1];
				double baseline = rates[2] / rates[3];
				ratios.add(measured / baseline);
				System.out.printf(Locale.ROOT, "%5d  %.1fk  %.1fk  %.2f%n", round, measured / 1000, baseline / 1000,
						measured / baseline);
			}
		});
		if (ratios.isEmpty()) {
			System.out.println("no complete round");
			return;
		}
		long wins = ratios.stream().filter((ratio) -> ratio >= 1.0).count();
		System.out.printf(Locale.ROOT, "median ratio %.2f over %d rounds; %s >= %s in %d of them%n", median(ratios),
				ratios.size(), setup, reference, wins);
	}

	// Per round: sum and count of the measured setup's iterations, then of the reference's.
	private static Map<Integer, double[]> rates(Path sideFile, String setup, String reference) throws IOException {
		JsonMapper mapper = JsonMapper.builder().build();
		Map<Integer, double[]> rounds = new TreeMap<>();
		for (String line : Files.readAllLines(sideFile)) {
			if (line.isBlank()) {
				continue;
			}
			JsonNode record = mapper.readTree(line);
			String name = record.path("params").path("setup").asString();
			if (!"measurement".equals(record.path("kind").asString())
					|| !(name.equals(setup) || name.equals(reference))) {
				continue;
			}
			double[] rates = rounds.computeIfAbsent(record.path("round").asInt(), (round) -> new double[4]);
			int offset = name.equals(setup) ? 0 : 2;
			rates[offset] += record.path("serverOpsPerSec").asDouble();
			rates[offset + 1]++;
		}
		return rounds;
	}

	private static double median(List<Double> values) {
		List<Double> sorted = values.stream().sorted().toList();
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

}
