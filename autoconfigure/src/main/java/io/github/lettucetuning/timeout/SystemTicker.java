package io.github.lettucetuning.timeout;

/**
 * {@link Ticker} reading {@link System#nanoTime()}; an enum for a stable, readable
 * singleton.
 */
enum SystemTicker implements Ticker {

	INSTANCE;

	@Override
	public long nanoTime() {
		return System.nanoTime();
	}

	@Override
	public String toString() {
		return "Ticker.system()";
	}

}
