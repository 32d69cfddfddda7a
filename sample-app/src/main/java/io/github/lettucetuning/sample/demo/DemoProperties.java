package io.github.lettucetuning.sample.demo;

import java.time.Duration;
import java.util.List;

/**
 * Settings of the side-by-side demo, given as {@code --demo.*} arguments.
 */
public class DemoProperties {

	/**
	 * The setups to compare, in order: 'stock' (Spring Boot's own Lettuce setup),
	 * 'shared' and 'multi' (lettuce-tuning's modes).
	 */
	private List<String> setups = List.of("stock", "shared", "multi");

	/**
	 * How long each setup runs before it is measured, so that the JIT has compiled its
	 * paths.
	 */
	private Duration warmup = Duration.ofSeconds(4);

	/**
	 * How long each setup is measured.
	 */
	private Duration duration = Duration.ofSeconds(12);

	/**
	 * Number of threads sending requests concurrently.
	 */
	private int threads = 32;

	/**
	 * Where the chart is written.
	 */
	private String outputDirectory = "sample-app/target/demo";

	public List<String> getSetups() {
		return this.setups;
	}

	public void setSetups(List<String> setups) {
		this.setups = setups;
	}

	public Duration getWarmup() {
		return this.warmup;
	}

	public void setWarmup(Duration warmup) {
		this.warmup = warmup;
	}

	public Duration getDuration() {
		return this.duration;
	}

	public void setDuration(Duration duration) {
		this.duration = duration;
	}

	public int getThreads() {
		return this.threads;
	}

	public void setThreads(int threads) {
		this.threads = threads;
	}

	public String getOutputDirectory() {
		return this.outputDirectory;
	}

	public void setOutputDirectory(String outputDirectory) {
		this.outputDirectory = outputDirectory;
	}

}
