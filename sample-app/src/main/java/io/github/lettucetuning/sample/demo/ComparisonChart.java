package io.github.lettucetuning.sample.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * Draws the demo's comparison as a PNG bar chart.
 */
final class ComparisonChart {

	private ComparisonChart() {
	}

	static Path write(List<RoundResult> results, Path directory, int threads) throws IOException {
		Files.createDirectories(directory);
		CategoryChart chart = new CategoryChartBuilder().width(900)
			.height(500)
			.title("Sample shop, " + threads + " threads: requests/s by setup (p99 latency in the labels)")
			.xAxisTitle("setup")
			.yAxisTitle("requests/s")
			.build();
		chart.getStyler().setLegendVisible(false);
		chart.getStyler().setLabelsVisible(true);
		List<String> labels = results.stream()
			.map((result) -> "%s (p99 %.1f ms)".formatted(result.setup(), result.p99Millis()))
			.toList();
		List<Long> values = results.stream().map(RoundResult::requestsPerSecond).toList();
		chart.addSeries("requests/s", labels, values);
		Path file = directory.resolve("lettuce-tuning-demo.png");
		BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
		return file;
	}

}
