package io.github.lettucetuning.benchmarks.report;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Human-readable descriptions of the client setups of the mode benchmarks, and the
 * order they are shown in.
 *
 * @author lettuce-tuning
 */
final class SetupNames {

	/**
	 * The stock Spring Boot baseline the ratios are computed against: Spring Boot's
	 * default when commons-pool2 is on the classpath.
	 */
	static final String BASELINE = "boot-lettuce-pool2";

	/**
	 * The baseline with Netty's native epoll transport added by hand: the reference for
	 * how much of a difference to the baseline the transport makes.
	 */
	static final String BASELINE_EPOLL = BASELINE + "-epoll";

	/**
	 * The order of the standard setups; others follow in the order found.
	 */
	static final List<String> ORDER = List.of("jedis-pool-8", "jedis-pool-50", "jedis-pool-200", "lettuce-shared",
			"lettuce-pool-8", "lettuce-pool-200", "lettuce-multi-1x", "lettuce-multi-2x", "lettuce-multi-4x",
			"boot-lettuce", "boot-lettuce-pool2", "boot-lettuce-pool2-epoll", "boot-lettuce-unshared-8", "boot-jedis-8",
			"boot-jedis-50", "tuning-shared", "tuning-shared-unmerged", "tuning-multi-1x", "tuning-multi-1x-affinity",
			"tuning-multi-2x", "tuning-pooled-8");

	private static final Pattern SIZE = Pattern.compile("(\\d+)(x?)");

	private SetupNames() {
	}

	/**
	 * Return the position of a setup in the display order.
	 * @param setup the setup name
	 * @return its rank
	 */
	static int rank(String setup) {
		int index = ORDER.indexOf(setup);
		return (index >= 0) ? index : ORDER.size();
	}

	/**
	 * Describe a setup.
	 * @param setup the setup name, e.g. {@code lettuce-multi-2x}
	 * @return e.g. {@code raw Lettuce, 4 connections round-robin}
	 */
	static String describe(String setup) {
		String size = size(setup);
		if (setup.startsWith("jedis-pool-")) {
			return "raw Jedis, JedisPool " + size;
		}
		if (setup.equals("lettuce-shared")) {
			return "raw Lettuce, 1 shared connection";
		}
		if (setup.startsWith("lettuce-pool-")) {
			return "raw Lettuce, commons-pool2 pool " + size;
		}
		if (setup.startsWith("lettuce-multi-")) {
			return "raw Lettuce, " + size + " connections round-robin"
					+ (setup.endsWith("-io1") ? " on 1 event loop" : "");
		}
		if (setup.equals("boot-lettuce")) {
			return "Boot, Lettuce, pool disabled";
		}
		if (setup.equals(BASELINE_EPOLL)) {
			return "Boot, Lettuce + commons-pool2, epoll added by hand";
		}
		if (setup.equals(BASELINE)) {
			return "Boot, Lettuce + commons-pool2 (baseline)";
		}
		if (setup.startsWith("boot-lettuce-unshared-")) {
			return "Boot, Lettuce, shareNativeConnection=false, pool " + size;
		}
		if (setup.startsWith("boot-jedis-")) {
			return "Boot, Jedis pool " + size;
		}
		if (setup.equals("tuning-shared")) {
			return "lettuce-tuning shared";
		}
		if (setup.equals("tuning-shared-unmerged")) {
			return "lettuce-tuning shared, flush consolidation off";
		}
		if (setup.startsWith("tuning-multi-")) {
			String selection = setup.endsWith("-affinity") ? "thread-affinity"
					: setup.endsWith("-lif") ? "least-in-flight" : "round-robin";
			return "lettuce-tuning multi " + size + " (" + selection + ")";
		}
		if (setup.startsWith("tuning-pooled-")) {
			return "lettuce-tuning pooled " + size + " (pool max-wait 1m)";
		}
		return setup;
	}

	// "2x" means two per available processor of this machine.
	private static String size(String setup) {
		String[] parts = setup.split("-");
		for (String part : parts) {
			Matcher matcher = SIZE.matcher(part);
			if (matcher.matches()) {
				int number = Integer.parseInt(matcher.group(1));
				return matcher.group(2).isEmpty() ? Integer.toString(number)
						: Integer.toString(number * Runtime.getRuntime().availableProcessors());
			}
		}
		return "";
	}

}
