package io.github.lettucetuning.testsupport.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Sends POSIX signals the JDK has no API for (SIGSTOP, SIGCONT) through {@code kill(1)}.
 */
public final class ProcessSignals {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private ProcessSignals() {
	}

	/**
	 * Send a signal to a process.
	 * @param pid the process id
	 * @param signal the signal name without {@code SIG}, e.g. {@code STOP}
	 */
	public static void send(long pid, String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-s", signal, Long.toString(pid)).redirectErrorStream(true)
				.start();
			if (!kill.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
				kill.destroyForcibly();
				throw new RedisServerException("'kill -s " + signal + " " + pid + "' did not finish in " + TIMEOUT);
			}
			if (kill.exitValue() != 0) {
				String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
				throw new RedisServerException("'kill -s " + signal + " " + pid + "' failed: " + output);
			}
		}
		catch (IOException ex) {
			throw new RedisServerException("Cannot run 'kill -s " + signal + " " + pid + "'", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisServerException("Interrupted while sending SIG" + signal + " to " + pid, ex);
		}
	}

	/**
	 * Return the kernel function the process' main thread waits in, e.g.
	 * {@code do_epoll_wait} when idle or {@code hrtimer_nanosleep} during
	 * {@code DEBUG SLEEP}; {@code ?} when unknown (no {@code /proc}, or hidden).
	 * @param pid the process id
	 * @return the wait channel
	 */
	public static String waitChannel(long pid) {
		try {
			String channel = Files.readString(Path.of("/proc", Long.toString(pid), "wchan")).trim();
			return (channel.isEmpty() || "0".equals(channel)) ? "?" : channel;
		}
		catch (IOException | RuntimeException ex) {
			return "?";
		}
	}

	/**
	 * Return the scheduler state letter of a process from {@code /proc/<pid>/stat}
	 * ({@code R}, {@code S}, {@code T} for stopped...), or {@code ?} when unknown.
	 * @param pid the process id
	 * @return the state letter
	 */
	public static char state(long pid) {
		try {
			String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
			// The command name in parentheses may contain spaces: the state follows the
			// last ')'
			int end = stat.lastIndexOf(')');
			return (end > 0 && end + 2 < stat.length()) ? stat.charAt(end + 2) : '?';
		}
		catch (IOException | RuntimeException ex) {
			return '?';
		}
	}

}
