package io.github.lettucetuning.benchmarks.report;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.springframework.boot.SpringBootVersion;

/**
 * What the results were measured on: cores, CPU model, JDK, Redis and library versions,
 * date.
 *
 * @author lettuce-tuning
 */
final class MachineFacts {

	private MachineFacts() {
	}

	/**
	 * Collect the facts.
	 * @param jmh the JMH results (for the JDK the forks ran on)
	 * @param side the side records (for the Redis version)
	 * @param date the date of the results
	 * @return the facts, in display order
	 */
	static Map<String, String> collect(List<JmhEntry> jmh, Map<ResultKey, List<SideRecord>> side, LocalDate date) {
		Map<String, String> facts = new LinkedHashMap<>();
		facts.put("Date", date.toString());
		facts.put("Cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
		facts.put("CPU", cpuModel());
		facts.put("JDK", jmh.isEmpty() ? System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
				: jmh.get(0).vm());
		facts.put("Redis", side.values()
			.stream()
			.flatMap(List::stream)
			.map(SideRecord::redisVersion)
			.findFirst()
			.orElse("unknown"));
		facts.put("Spring Boot", SpringBootVersion.getVersion());
		facts.put("Spring Data Redis", mavenVersion("org.springframework.data", "spring-data-redis"));
		facts.put("Lettuce", mavenVersion("io.lettuce", "lettuce-core"));
		facts.put("Netty", mavenVersion("io.netty", "netty-common"));
		facts.put("Jedis", mavenVersion("redis.clients", "jedis"));
		facts.put("commons-pool2", mavenVersion("org.apache.commons", "commons-pool2"));
		facts.put("JMH", mavenVersion("org.openjdk.jmh", "jmh-core"));
		return facts;
	}

	private static String cpuModel() {
		try {
			for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
				if (line.startsWith("model name")) {
					return line.substring(line.indexOf(':') + 1).trim();
				}
			}
		}
		catch (IOException ex) {
			// not Linux
		}
		return System.getProperty("os.arch");
	}

	private static String mavenVersion(String groupId, String artifactId) {
		String resource = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
		try (InputStream in = MachineFacts.class.getResourceAsStream(resource)) {
			if (in == null) {
				return "unknown";
			}
			Properties properties = new Properties();
			properties.load(in);
			return properties.getProperty("version", "unknown");
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

}
