package io.github.lettucetuning.sample.demo;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the demo load.
 *
 * @author lettuce-tuning
 */
@ConfigurationProperties("demo")
public class DemoProperties {

	/**
	 * Whether to drive the shop with load at startup, print the results and exit.
	 */
	private boolean enabled;

	/**
	 * How long the load runs.
	 */
	private Duration duration = Duration.ofSeconds(20);

	/**
	 * Number of threads sending requests concurrently.
	 */
	private int threads = 32;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
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

}
