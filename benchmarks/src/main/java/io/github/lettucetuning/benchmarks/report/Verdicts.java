package io.github.lettucetuning.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Checks the results against the project's targets.
 *
 * @author lettuce-tuning
 */
final class Verdicts {

	private static final int THREADS = 200;

	private static final String SET = "set";

	private static final double BYTES_TOLERANCE = 1.01;

	private static final String UNSHARED = "boot-lettuce-unshared-8";

	private Verdicts() {
	}

	/**
	 * Evaluate every target.
	 * @param results the results
	 * @return one verdict per target
	 */
	static List<Verdict> evaluate(ResultSet results) {
		List<Verdict> verdicts = new ArrayList<>();
		verdicts.add(ratio(results, "tuning-shared", SetupNames.BASELINE, 1.0,
				"lettuce-tuning shared >= 1.0x stock Boot + commons-pool2"));
		verdicts.add(reference(ratio(results, "tuning-shared", SetupNames.BASELINE_EPOLL, 1.0,
				"lettuce-tuning shared against stock Boot + commons-pool2 with epoll added by hand "
						+ "(a reference, no target: the part of the difference the transport does not explain)")));
		String bestJedis = best(results, "boot-jedis-8", "boot-jedis-50");
		for (String multi : List.of("tuning-multi-1x", "tuning-multi-1x-affinity", "tuning-multi-2x")) {
			verdicts.add(ratio(results, multi, bestJedis, 1.0,
					SetupNames.describe(multi) + " >= 1.0x best stock Boot + Jedis pool"));
			verdicts.add(ratio(results, multi, "tuning-shared", 0.9,
					SetupNames.describe(multi) + " no more than 10% below lettuce-tuning shared"));
		}
		verdicts.add(bytes(results));
		for (String method : List.of(SET, "pipelinedSet")) {
			verdicts.add(gap(results, method, Metric.SERVER_OPS));
			verdicts.add(gap(results, method, Metric.CLIENT_CPU));
		}
		return verdicts;
	}

	private static String best(ResultSet results, String... setups) {
		String best = setups[0];
		double bestValue = Double.NEGATIVE_INFINITY;
		for (String setup : setups) {
			double value = results.spread(ResultSet.MODES, SET, setup, THREADS, Metric.SERVER_OPS).median();
			if (value > bestValue) {
				best = setup;
				bestValue = value;
			}
		}
		return best;
	}

	private static Verdict ratio(ResultSet results, String setup, String reference, double target, String name) {
		String fullName = name + " (SET, " + THREADS + " threads, server-counted)";
		Optional<ResultRow> measuredRow = results.find(ResultSet.MODES, SET, setup, THREADS);
		Optional<ResultRow> baselineRow = results.find(ResultSet.MODES, SET, reference, THREADS);
		if (measuredRow.isEmpty() || baselineRow.isEmpty()) {
			return Verdict.noData(fullName);
		}
		Spread measured = measuredRow.get().spread(Metric.SERVER_OPS);
		Spread baseline = baselineRow.get().spread(Metric.SERVER_OPS);
		if (measured.isEmpty() || baseline.isEmpty()) {
			return Verdict.noData(fullName);
		}
		String text = String.format(Locale.ROOT, "%s / %s = %s / %s = %.2fx (%s)", setup, reference,
				Format.kilo(measured), Format.kilo(baseline), measured.median() / baseline.median(),
				basis(measuredRow.get()) + " vs " + basis(baselineRow.get()));
		PairedRatio paired = PairedRatio.of(measuredRow.get().byRound(Metric.SERVER_OPS),
				baselineRow.get().byRound(Metric.SERVER_OPS));
		if (paired.decides()) {
			return pairedVerdict(fullName, text, paired, setup, target);
		}
		double ratio = measured.median() / baseline.median();
		boolean overlap = measured.min() <= baseline.max() && baseline.min() <= measured.max();
		String unit = (measuredRow.get().forks() > 1) ? "fork" : "iteration";
		String note = overlap ? unit + " ranges overlap: within this run's noise" : unit + " ranges do not overlap";
		return new Verdict(fullName, text, (ratio >= target) ? "PASS" : "MISS", note);
	}

	// The paired ratio decides: forks of the same round saw the same machine.
	private static Verdict pairedVerdict(String name, String text, PairedRatio paired, String setup, double target) {
		List<String> ratios = new ArrayList<>();
		for (double ratio : paired.ratios()) {
			ratios.add(Format.number(ratio, 2));
		}
		String measured = String.format(Locale.ROOT, "%s; **paired by round: median %.2fx** (%s)", text,
				paired.median(), String.join(", ", ratios));
		String note = String.format(Locale.ROOT, "decided on the paired median; %s ahead in %d of %d rounds "
				+ "(sign test p=%.3f)", setup, paired.wins(), paired.rounds().size(), paired.signTestP());
		return new Verdict(name, measured, (paired.median() >= target) ? "PASS" : "MISS", note);
	}

	private static Verdict reference(Verdict verdict) {
		return verdict.outcome().equals("NO DATA") ? verdict
				: new Verdict(verdict.target(), verdict.measured(), "INFO", verdict.note());
	}

	// "3 forks: 74.5, 70.1, 80.2k" or "1 fork, 3 iterations"
	private static String basis(ResultRow row) {
		if (row.forks() <= 1) {
			return "1 fork, " + row.iterations(Metric.SERVER_OPS).size() + " iterations";
		}
		List<String> means = new ArrayList<>();
		for (double mean : row.forkMeans(Metric.SERVER_OPS)) {
			means.add(Format.number(mean / 1000, 1));
		}
		return row.forks() + " forks: " + String.join(", ", means) + "k";
	}

	private static Verdict bytes(ResultSet results) {
		String name = "bytes/op of every lettuce-tuning mode <= its stock Boot counterpart (JMH gc.alloc.rate.norm, "
				+ "every operation and thread count; shared and multi vs " + SetupNames.BASELINE + ", pooled vs "
				+ UNSHARED + ")";
		double worst = 0;
		String worstCase = "";
		List<String> over = new ArrayList<>();
		for (ResultRow row : results.of(ResultSet.MODES)) {
			ResultKey key = row.key();
			if (!key.setup().startsWith("tuning-")) {
				continue;
			}
			String counterpart = key.setup().startsWith("tuning-pooled-") ? UNSHARED : SetupNames.BASELINE;
			Spread baseline = results.spread(ResultSet.MODES, key.method(), counterpart, key.threads(),
					Metric.JMH_BYTES);
			double bytes = row.value(Metric.JMH_BYTES);
			if (baseline.isEmpty() || Double.isNaN(bytes)) {
				continue;
			}
			double ratio = bytes / baseline.median();
			String where = String.format(Locale.ROOT, "%s %s %dt: %.0f vs %.0f B (%.2fx)", key.setup(), key.method(),
					key.threads(), bytes, baseline.median(), ratio);
			if (ratio > worst) {
				worst = ratio;
				worstCase = where;
			}
			if (ratio > BYTES_TOLERANCE) {
				over.add(where);
			}
		}
		if (worstCase.isEmpty()) {
			return Verdict.noData(name);
		}
		String measured = "largest ratio: " + worstCase;
		String note = over.isEmpty() ? "allowing 1% for measurement noise"
				: "above the counterpart by more than 1%: " + String.join("; ", over);
		return new Verdict(name, measured, over.isEmpty() ? "PASS" : "MISS", note);
	}

	private static Verdict gap(ResultSet results, String method, Metric metric) {
		boolean ops = metric == Metric.SERVER_OPS;
		String name = String.format(Locale.ROOT, "timer e2e %s: wheel closes >= half of the netty-to-off gap in %s",
				method, ops ? "server-counted ops/s" : "client CPU/op");
		Optional<ResultRow> wheel = results.find(ResultSet.TIMER, method, "wheel", 0);
		Optional<ResultRow> netty = results.find(ResultSet.TIMER, method, "netty", 0);
		Optional<ResultRow> off = results.find(ResultSet.TIMER, method, "off", 0);
		if (wheel.isEmpty() || netty.isEmpty() || off.isEmpty()) {
			return Verdict.noData(name);
		}
		PairedGap gap = PairedGap.of(wheel.get().byRound(metric), netty.get().byRound(metric),
				off.get().byRound(metric), ops);
		if (gap.rounds().isEmpty()) {
			return Verdict.noData(name);
		}
		String measured = String.format(Locale.ROOT,
				"netty %s, wheel %s, off %s (medians of forks); paired by round: off better than netty by %s, "
						+ "wheel by %s: %.0f%% of the gap closed",
				Format.spread(netty.get().spread(metric), ops), Format.spread(wheel.get().spread(metric), ops),
				Format.spread(off.get().spread(metric), ops), Format.deltas(gap.offGain(), ops),
				Format.deltas(gap.wheelGain(), ops), gap.closed() * 100);
		String rounds = String.format(Locale.ROOT,
				"off better than netty in %d of %d rounds (sign test p=%.3f), wheel better than netty in %d of %d",
				gap.offBetter(), gap.rounds().size(), gap.signTestP(), gap.wheelBetter(), gap.rounds().size());
		if (!gap.resolved()) {
			return new Verdict(name, measured, "INCONCLUSIVE", rounds + ": the gap is not resolved from noise");
		}
		return new Verdict(name, measured, (gap.closed() >= 0.5) ? "PASS" : "MISS", rounds);
	}
}
