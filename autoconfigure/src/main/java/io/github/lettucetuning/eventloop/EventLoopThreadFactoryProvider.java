package io.github.lettucetuning.eventloop;

import java.util.concurrent.ThreadFactory;

import io.lettuce.core.resource.ThreadFactoryProvider;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * Gives Lettuce's I/O event loops {@link EventLoopThread}s and every other pool (the
 * computation threads) plain ones. Names, daemon flag and priority stay as Lettuce's own
 * provider sets them. Register it with
 * {@code ClientResources.Builder#threadFactoryProvider}.
 *
 * @since 0.2.0
 */
public final class EventLoopThreadFactoryProvider implements ThreadFactoryProvider {

	// Lettuce names its I/O pools lettuce-epollEventLoop, lettuce-nioEventLoop,
	// lettuce-kqueueEventLoop and lettuce-io_uringEventLoop; its computation pool is
	// lettuce-eventExecutorLoop.
	private static final String IO_POOL_SUFFIX = "EventLoop";

	@Override
	public ThreadFactory getThreadFactory(String poolName) {
		return isIoPool(poolName) ? new EventLoopThreadFactory(poolName) : new DefaultThreadFactory(poolName, true);
	}

	static boolean isIoPool(String poolName) {
		return poolName.endsWith(IO_POOL_SUFFIX);
	}

	private static final class EventLoopThreadFactory extends DefaultThreadFactory {

		EventLoopThreadFactory(String poolName) {
			super(poolName, true);
		}

		@Override
		protected Thread newThread(Runnable task, String name) {
			return new EventLoopThread(this.threadGroup, task, name);
		}

	}

}
