package io.github.lettucetuning.eventloop;

import io.netty.util.concurrent.FastThreadLocalThread;
import reactor.core.scheduler.NonBlocking;

/**
 * A thread of one of the client's I/O event loops. It reads the replies of every
 * connection the loop serves, so nothing that runs on it may wait for one: Reactor's
 * {@code block()} refuses to run on it (it is {@link NonBlocking}), and so does a
 * synchronous Spring Data Redis call ({@link BlockingCallGuard}).
 *
 * @since 0.2.0
 */
public final class EventLoopThread extends FastThreadLocalThread implements NonBlocking {

	EventLoopThread(ThreadGroup group, Runnable task, String name) {
		super(group, task, name);
	}

}
