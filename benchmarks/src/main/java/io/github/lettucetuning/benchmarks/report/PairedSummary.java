package io.github.lettucetuning.benchmarks.report;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

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
	 */
	public static void main(String[] args) {
		String setup = args[1];
		String reference = args[2];
		Map<ResultKey, List<SideRecord>> records = SideRecords.read(List.of(Path.of(args[0])));
		Map<Integer, Double> measured = meanByRound(records, setup);
		Map<Integer, Double> baseline = meanByRound(records, reference);
		PairedRatio paired = PairedRatio.of(measured, baseline);
		if (paired.rounds().isEmpty()) {
			System.out.println("no complete round");
			return;
		}
		System.out.printf(Locale.ROOT, "round  %s  %s  ratio%n", setup, reference);
		for (int i = 0; i < paired.rounds().size(); i++) {
			int round = paired.rounds().get(i);
			System.out.printf(Locale.ROOT, "%5d  %.1fk  %.1fk  %.2f%n", round, measured.get(round) / 1000,
					baseline.get(round) / 1000, paired.ratios().get(i));
		}
		System.out.printf(Locale.ROOT, "median ratio %.2f over %d rounds; %s ahead in %d of them (sign test p=%.3f)%n",
				paired.median(), paired.rounds().size(), setup, paired.wins(), paired.signTestP());
	}

	// The server-counted rate of a setup per round: the mean of its measurement iterations.
	private static Map<Integer, Double> meanByRound(Map<ResultKey, List<SideRecord>> records, String setup) {
		Map<Integer, List<Double>> rates = new TreeMap<>();
		records.forEach((key, iterations) -> {
			if (key.setup().equals(setup)) {
				iterations.forEach((record) -> rates.computeIfAbsent(record.round(), (round) -> new ArrayList<>())
					.add(record.serverOpsPerSec()));
			}
		});
		Map<Integer, Double> means = new TreeMap<>();
		rates.forEach((round, values) -> means.put(round,
				values.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN)));
		return means;
	}

}
