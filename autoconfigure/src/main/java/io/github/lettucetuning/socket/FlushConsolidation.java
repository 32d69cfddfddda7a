package io.github.lettucetuning.socket;

import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;

/**
 * Merges the flushes of commands that many threads send over one connection into fewer
 * socket writes, with Netty's {@link FlushConsolidationHandler} at the tail of every
 * channel's pipeline.
 * <p>
 * Lettuce writes and flushes every command on its own: a caller thread hands the
 * connection's event loop one write task per command, and each task ends in a
 * {@code write(2)} system call. With the handler, a flush outside of a read only marks
 * the channel, and one flush task queued behind the write tasks already waiting writes
 * them all at once; during a read, flushes wait for the read to complete. Nothing waits
 * for a timer: a lone command is flushed as soon as the event loop has run the tasks
 * queued before it, and a busy loop flushes at the latest after {@code maxFlushes}
 * commands. So Redis reads many commands per system call, and both sides spend less CPU
 * per command.
 * <p>
 * Register it with {@code ClientResources.Builder#nettyCustomizer}: the handler then sits
 * on every connection of the client resources, including the ones a reconnect opens.
 *
 * @since 0.1.0
 */
public final class FlushConsolidation implements NettyCustomizer {

	/**
	 * The name of the handler in each channel's pipeline.
	 */
	public static final String HANDLER_NAME = "lettuceTuningFlushConsolidation";

	private final int maxFlushes;

	/**
	 * Create an instance.
	 * @param maxFlushes the most flushes merged before the channel is flushed anyway
	 */
	public FlushConsolidation(int maxFlushes) {
		if (maxFlushes < 1) {
			throw new IllegalArgumentException("maxFlushes must be at least 1, was " + maxFlushes);
		}
		this.maxFlushes = maxFlushes;
	}

	/**
	 * Return the most flushes merged before the channel is flushed anyway.
	 * @return the maximum
	 */
	public int maxFlushes() {
		return this.maxFlushes;
	}

	// At the tail, the handler sees a flush before any encoder or TLS handler does, so
	// those work once per batch too.
	@Override
	public void afterChannelInitialized(Channel channel) {
		channel.pipeline().addLast(HANDLER_NAME, new FlushConsolidationHandler(this.maxFlushes, true));
	}

}
