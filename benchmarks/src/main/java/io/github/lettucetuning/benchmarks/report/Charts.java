package io.github.lettucetuning.benchmarks.report;

import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler.LegendPosition;

/**
 * Draws the PNG charts of the results page with XChart.
 *
 * @author lettuce-tuning
 */
final class Charts {

	private static final List<String> MODE_METHODS = List.of("set", "get", "mix");

	private static final List<String> MODE_LABELS = List.of("SET", "GET", "80/20 mix");

	private static final List<String> TIMERS = List.of("netty", "wheel", "off");

	private final ResultSet results;

	private final Path directory;

	private final List<String> written = new ArrayList<>();

	Charts(ResultSet results, Path directory) {
		this.results = results;
		this.directory = directory;
	}

	/**
	 * Draw every chart there is data for.
	 * @return the file names written, relative to the directory
	 */
	List<String> draw() {
		for (int threads : this.results.threads(ResultSet.MODES)) {
			throughput(threads);
		}
		int most = this.results.threads(ResultSet.MODES).stream().mapToInt(Integer::intValue).max().orElse(0);
		if (most > 0) {
			cost(most);
			allocation(most);
		}
		if (!this.results.of(ResultSet.TIMER).isEmpty()) {
			timerThroughput();
			timerCpu();
		}
		return this.written;
	}

	private void throughput(int threads) {
		List<String> setups = this.results.setups(ResultSet.MODES, threads);
		CategoryChart chart = chart("Server-counted throughput, " + threads + " threads (median of iterations)",
				"k ops/s", setups.size());
		for (int i = 0; i < MODE_METHODS.size(); i++) {
			List<Double> values = new ArrayList<>();
			for (String setup : setups) {
				values.add(orZero(this.results.spread(ResultSet.MODES, MODE_METHODS.get(i), setup, threads,
						Metric.SERVER_OPS).median() / 1000));
			}
			addIfAny(chart, MODE_LABELS.get(i), setups, values);
		}
		save(chart, "modes-throughput-" + threads + "t");
	}

	private void cost(int threads) {
		List<String> setups = this.results.setups(ResultSet.MODES, threads);
		CategoryChart chart = chart("CPU per SET, " + threads + " threads (client JVM and redis-server)",
				"µs per command", setups.size());
		chart.getStyler().setStacked(true);
		List<Double> client = new ArrayList<>();
		List<Double> server = new ArrayList<>();
		for (String setup : setups) {
			client.add(orZero(this.results.spread(ResultSet.MODES, "set", setup, threads, Metric.CLIENT_CPU).median()));
			server.add(orZero(this.results.spread(ResultSet.MODES, "set", setup, threads, Metric.SERVER_CPU).median()));
		}
		chart.addSeries("client JVM", setups, client);
		chart.addSeries("redis-server", setups, server);
		save(chart, "modes-cpu-" + threads + "t");
	}

	private void allocation(int threads) {
		List<String> setups = this.results.setups(ResultSet.MODES, threads);
		CategoryChart chart = chart("Bytes allocated per operation, " + threads + " threads (JMH gc.alloc.rate.norm)",
				"B/op", setups.size());
		for (int i = 0; i < MODE_METHODS.size(); i++) {
			List<Double> values = new ArrayList<>();
			for (String setup : setups) {
				values.add(orZero(this.results.spread(ResultSet.MODES, MODE_METHODS.get(i), setup, threads,
						Metric.JMH_BYTES).median()));
			}
			addIfAny(chart, MODE_LABELS.get(i), setups, values);
		}
		save(chart, "modes-alloc-" + threads + "t");
	}

	// Each workload relative to its own timeouts-off median, so both fit one axis.
	private void timerThroughput() {
		double lowest = 100;
		for (String method : timerMethods()) {
			double off = this.results.spread(ResultSet.TIMER, method, "off", 0, Metric.SERVER_OPS).median();
			for (String timer : TIMERS) {
				double min = this.results.spread(ResultSet.TIMER, method, timer, 0, Metric.SERVER_OPS).min();
				lowest = Math.min(lowest, orZero(100 * min / off));
			}
		}
		double axisMin = Math.max(0, Math.floor(lowest / 5) * 5 - 5);
		CategoryChart chart = chart(String.format(Locale.ROOT, "Timer end to end: server-counted throughput vs "
				+ "timeouts off (median of forks, bars: fork range; axis from %.0f%%)", axisMin),
				"% of timeouts-off throughput", TIMERS.size());
		for (String method : timerMethods()) {
			double off = this.results.spread(ResultSet.TIMER, method, "off", 0, Metric.SERVER_OPS).median();
			addWithRange(chart, method, Metric.SERVER_OPS, 100 / off);
		}
		chart.getStyler().setYAxisMin(axisMin);
		save(chart, "timer-e2e-throughput");
	}

	private void timerCpu() {
		CategoryChart chart = chart("Timer end to end: client JVM CPU per SET (median of forks, bars: full fork range)",
				"µs per SET", TIMERS.size());
		for (String method : timerMethods()) {
			addWithRange(chart, method, Metric.CLIENT_CPU, 1);
		}
		save(chart, "timer-e2e-cpu");
	}

	private List<String> timerMethods() {
		List<String> methods = new ArrayList<>();
		for (ResultRow row : this.results.of(ResultSet.TIMER)) {
			if (!methods.contains(row.key().method())) {
				methods.add(row.key().method());
			}
		}
		return methods;
	}

	// XChart draws symmetric error bars: use the larger distance from the median to a fork.
	private void addWithRange(CategoryChart chart, String method, Metric metric, double scale) {
		List<Double> values = new ArrayList<>();
		List<Double> errors = new ArrayList<>();
		int threads = 0;
		for (String timer : TIMERS) {
			Spread spread = this.results.spread(ResultSet.TIMER, method, timer, 0, metric);
			threads = this.results.find(ResultSet.TIMER, method, timer, 0).map((row) -> row.key().threads()).orElse(0);
			values.add(orZero(spread.median() * scale));
			errors.add(orZero(Math.max(spread.max() - spread.median(), spread.median() - spread.min()) * scale));
		}
		chart.addSeries(method + " (" + threads + " threads)", TIMERS, values, errors);
	}

	private static CategoryChart chart(String title, String yAxis, int categories) {
		int width = Math.max(900, 90 * categories + 300);
		CategoryChart chart = new CategoryChartBuilder().width(width)
			.height(650)
			.title(title)
			.yAxisTitle(yAxis)
			.build();
		chart.getStyler().setLegendPosition(LegendPosition.OutsideS);
		chart.getStyler().setXAxisLabelRotation((categories > 4) ? 40 : 0);
		chart.getStyler().setAvailableSpaceFill(0.8);
		chart.getStyler().setPlotBackgroundColor(Color.WHITE);
		chart.getStyler().setChartBackgroundColor(Color.WHITE);
		chart.getStyler().setPlotGridVerticalLinesVisible(false);
		chart.getStyler().setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
		chart.getStyler().setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
		chart.getStyler().setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
		chart.getStyler().setErrorBarsColor(Color.DARK_GRAY);
		return chart;
	}

	private void save(CategoryChart chart, String name) {
		try {
			BitmapEncoder.saveBitmap(chart, this.directory.resolve(name).toString(), BitmapFormat.PNG);
			this.written.add(name + ".png");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write chart " + name, ex);
		}
	}

	private static void addIfAny(CategoryChart chart, String name, List<String> categories, List<Double> values) {
		if (values.stream().anyMatch((value) -> value > 0)) {
			chart.addSeries(name, categories, values);
		}
	}

	private static double orZero(double value) {
		return Double.isNaN(value) || Double.isInfinite(value) ? 0 : value;
	}

}
