package io.github.lettucetuning.observation;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusOutputFormat;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusScrapeEndpoint;
import org.springframework.context.ApplicationContext;

/**
 * The {@code lettuce*} series of a context's {@code /actuator/prometheus}, as Boot's
 * {@link PrometheusScrapeEndpoint} serves them: what the parity tests compare between the
 * fast path and Boot's observation. The starter's own {@code lettuce_tuning_*} series are
 * left out.
 */
public final class LettuceSeries {

	private static final Pattern SAMPLE = Pattern.compile("^(\\w+)(\\{[^}]*\\})?\\s+(\\S+).*$");

	private LettuceSeries() {
	}

	/**
	 * Scrape the context's Prometheus endpoint.
	 * @param context a context with Boot's Prometheus scrape endpoint
	 * @return each {@code lettuce*} sample's value by its name and labels, as printed
	 */
	public static Map<String, Double> scrape(ApplicationContext context) {
		PrometheusScrapeEndpoint endpoint = context.getBean(PrometheusScrapeEndpoint.class);
		String text = new String(endpoint.scrape(PrometheusOutputFormat.CONTENT_TYPE_004, null).getBody(),
				StandardCharsets.UTF_8);
		Map<String, Double> samples = new TreeMap<>();
		for (String line : text.split("\n")) {
			Matcher matcher = SAMPLE.matcher(line);
			if (!line.startsWith("#") && matcher.matches() && matcher.group(1).startsWith("lettuce_")
					&& !matcher.group(1).startsWith("lettuce_tuning_")) {
				samples.put(matcher.group(1) + ((matcher.group(2) != null) ? matcher.group(2) : ""),
						Double.parseDouble(matcher.group(3)));
			}
		}
		return samples;
	}

	/**
	 * The commands of a type counted in the {@code lettuce} timer, over every series
	 * whose labels contain a fragment.
	 * @param samples a scrape
	 * @param operation the command type, e.g. {@code GET}
	 * @param labels a fragment of the labels, e.g. {@code error="none"}; empty for all
	 * @return the summed count
	 */
	public static double count(Map<String, Double> samples, String operation, String labels) {
		return samples.entrySet()
			.stream()
			.filter((sample) -> sample.getKey().startsWith("lettuce_seconds_count{")
					&& sample.getKey().contains("db_operation=\"" + operation + "\"")
					&& sample.getKey().contains(labels))
			.mapToDouble(Map.Entry::getValue)
			.sum();
	}

	/**
	 * The series of one name in a scrape.
	 * @param samples a scrape
	 * @param name the sample name, e.g. {@code lettuce_seconds_count}
	 * @return the series, name and labels, sorted
	 */
	public static Set<String> seriesOf(Map<String, Double> samples, String name) {
		Set<String> series = new TreeSet<>();
		for (String key : samples.keySet()) {
			if (key.startsWith(name + "{")) {
				series.add(key);
			}
		}
		return series;
	}

}
