package io.github.lettucetuning.chaos;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A client set-up a campaign runs: stock Spring Boot, or the starter in one of its
 * connection modes. Each runs in its own application context, with a client name and keys
 * of its own, so that several run side by side against the same servers and meet the same
 * faults at the same moments.
 */
enum Setup {

	/**
	 * Spring Boot's own Lettuce auto-configuration, the starter switched off.
	 */
	STOCK("stock Boot", "lettuce.tuning.enabled=false"),

	/**
	 * The starter's default mode: one shared connection.
	 */
	SHARED("starter, shared (default)", "lettuce.tuning.connection.mode=shared"),

	/**
	 * The starter with a set of shared connections.
	 */
	MULTI("starter, multi", "lettuce.tuning.connection.mode=multi"),

	/**
	 * The starter with thread-confined pooled connections.
	 */
	POOLED("starter, pooled", "lettuce.tuning.connection.mode=pooled");

	private final String label;

	private final String property;

	Setup(String label, String property) {
		this.label = label;
		this.property = property;
	}

	String label() {
		return this.label;
	}

	boolean starter() {
		return this != STOCK;
	}

	/**
	 * Return the name its connections carry ({@code CLIENT SETNAME}), which is also the
	 * prefix of its keys and channel.
	 * @return the name
	 */
	String clientName() {
		return "chaos-" + name().toLowerCase(Locale.ROOT);
	}

	String[] properties() {
		return new String[] { this.property, "spring.data.redis.client-name=" + clientName() };
	}

	/**
	 * Parse a comma-separated list of set-ups ({@code stock,shared,multi,pooled}).
	 * @param text the list, blank for all
	 * @return the set-ups
	 */
	static List<Setup> parse(String text) {
		if (text.isBlank()) {
			return List.of(values());
		}
		List<Setup> setups = new ArrayList<>();
		for (String name : text.split(",")) {
			String trimmed = name.trim().toUpperCase(Locale.ROOT);
			try {
				setups.add(valueOf(trimmed));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("chaos.setups: unknown set-up '" + name.trim() + "', use one of "
						+ Arrays.toString(values()).toLowerCase(Locale.ROOT), ex);
			}
		}
		return setups;
	}

}
