package io.github.lettucetuning.eventloop;

import java.time.Duration;
import java.time.Instant;

/**
 * One spell in which an event loop of the client did not run while commands waited on its
 * connections.
 *
 * @param thread the event loop's thread
 * @param since when the loop last ran before the spell
 * @param duration how long it has not run, or did not run
 * @param waitingCommands the commands that waited for a reply on its connections when the
 * spell was noticed
 * @param queuedTasks the tasks, other than the watchdog's probe, that waited in the
 * loop's queue when the spell was noticed: among them the commands callers handed the
 * loop that it has not written yet; {@code -1} if the loop does not tell
 * @param blockedAt the first frame of the thread's stack outside the JDK when the spell
 * was noticed, usually the application code that blocks it
 * @since 0.2.0
 */
public record BlockedEventLoop(String thread, Instant since, Duration duration, int waitingCommands, int queuedTasks,
		String blockedAt) {

	BlockedEventLoop lasting(Duration duration) {
		return new BlockedEventLoop(this.thread, this.since, duration, this.waitingCommands, this.queuedTasks,
				this.blockedAt);
	}

}
