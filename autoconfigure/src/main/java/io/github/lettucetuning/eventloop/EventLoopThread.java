package io.github.lettucetuning.eventloop;

import io.netty.util.concurrent.FastThreadLocalThread;
import reactor.core.scheduler.NonBlocking;

/**
 * A thread of one of the client's I/O event loops. It reads the replies of every
 * connection the loop serves, so nothing that runs on it may wait for one of those:
 * Reactor's {@code block()} refuses to run on it (it is {@link NonBlocking}), and a
 * synchronous Spring Data Redis call made on it is refused where its command would go out
 * through this very loop ({@link BlockingCallGuard}).
 *
 * @since 0.2.0
 */
public final class EventLoopThread extends FastThreadLocalThread implements NonBlocking {

	// Synchronous Spring Data connections this thread holds open: between getConnection()
	// and close(), a command this thread writes itself is one it will wait for. Changed
	// by
	// the thread itself, read by the same thread on its write path: volatile only for the
	// rare connection closed elsewhere.
	private volatile int synchronousCalls;

	EventLoopThread(ThreadGroup group, Runnable task, String name) {
		super(group, task, name);
	}

	void enterSynchronousCall() {
		this.synchronousCalls++;
	}

	void exitSynchronousCall() {
		if (this.synchronousCalls > 0) {
			this.synchronousCalls--;
		}
	}

	boolean inSynchronousCall() {
		return this.synchronousCalls > 0;
	}

}
