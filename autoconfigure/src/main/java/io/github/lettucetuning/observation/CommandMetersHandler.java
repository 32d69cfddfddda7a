package io.github.lettucetuning.observation;

import java.util.Collection;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * {@link CommandMeters}' handler in one channel's pipeline. At the tail, it sees every
 * command written before Lettuce's command handler does, the moment Spring Boot's
 * observation would start, and notes it with the time in a ring, in the order the server
 * will answer. After each batch of reads it records the commands at the front of the ring
 * that are done, with one clock read for the batch: nothing is allocated for a command
 * that completes in order.
 * <p>
 * The rest cannot wait for the reads: a command that times out or fails while the server
 * is silent, or one that is still waiting when the channel closes (Lettuce may send it
 * again on the next channel, where it is noted again, as Boot's observation starts again
 * for it). A check that runs while commands wait, at most every {@value #SLOW_MILLIS} ms,
 * hands each command older than that to a callback on its completion, as the channel's
 * close hands all that remain; the callback records it when it completes. The check is
 * scheduled only while commands wait.
 * <p>
 * Outcomes are Boot's observation's, read off the completed command (see
 * {@link #record(EndpointTimers, RedisCommand, long)}), with one exception: a reactive
 * command that its subscriber cancels before the reply is cancelled inside Lettuce with
 * no trace on the command that tells it from one cancelled after its reply, so it is
 * recorded when its reply arrives, with {@code error=none}; Boot's observation, whose
 * tracing wraps every command, records it at the cancel with
 * {@code error=CancellationException}.
 */
final class CommandMetersHandler extends ChannelDuplexHandler {

	private static final Log logger = LogFactory.getLog(CommandMetersHandler.class);

	static final long SLOW_MILLIS = 50;

	private static final long SLOW_NANOS = TimeUnit.MILLISECONDS.toNanos(SLOW_MILLIS);

	private static final int INITIAL_CAPACITY = 64;

	private final CommandMeters meters;

	private @Nullable EndpointTimers timers;

	private RedisCommand<?, ?, ?>[] commands = new RedisCommand<?, ?, ?>[INITIAL_CAPACITY];

	private long[] starts = new long[INITIAL_CAPACITY];

	private int head;

	private int size;

	private @Nullable ScheduledFuture<?> check;

	CommandMetersHandler(CommandMeters meters) {
		this.meters = meters;
	}

	@Override
	public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
		int before = this.size;
		if (msg instanceof RedisCommand<?, ?, ?> command) {
			written(ctx, command, System.nanoTime());
		}
		else if (msg instanceof Collection<?> batch) {
			long now = System.nanoTime();
			for (Object element : batch) {
				if (element instanceof RedisCommand<?, ?, ?> command) {
					written(ctx, command, now);
				}
			}
		}
		try {
			super.write(ctx, msg, promise);
		}
		catch (Exception | Error ex) {
			// Lettuce's command handler refused the write before its observation started
			forgetNewest(this.size - before);
			throw ex;
		}
	}

	@Override
	public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
		if (this.size > 0) {
			recordDone(System.nanoTime());
		}
		super.channelReadComplete(ctx);
	}

	@Override
	public void channelInactive(ChannelHandlerContext ctx) throws Exception {
		recordDone(System.nanoTime());
		while (this.size > 0) {
			follow(this.commands[this.head], this.starts[this.head]);
			removeOldest();
		}
		ScheduledFuture<?> check = this.check;
		if (check != null) {
			check.cancel(false);
			this.check = null;
		}
		super.channelInactive(ctx);
	}

	private void written(ChannelHandlerContext ctx, RedisCommand<?, ?, ?> command, long now) {
		if (!(command instanceof CompleteableCommand<?>) || command.isDone()) {
			return;
		}
		if (this.timers == null) {
			this.timers = this.meters.endpoint(ctx.channel().remoteAddress());
		}
		add(command, now);
		if (this.check == null) {
			scheduleCheck(ctx, SLOW_NANOS);
		}
	}

	private void add(RedisCommand<?, ?, ?> command, long start) {
		if (this.size == this.commands.length) {
			grow();
		}
		int tail = (this.head + this.size) & (this.commands.length - 1);
		this.commands[tail] = command;
		this.starts[tail] = start;
		this.size++;
	}

	private void grow() {
		int capacity = this.commands.length;
		RedisCommand<?, ?, ?>[] commands = new RedisCommand<?, ?, ?>[capacity * 2];
		long[] starts = new long[capacity * 2];
		for (int i = 0; i < this.size; i++) {
			int from = (this.head + i) & (capacity - 1);
			commands[i] = this.commands[from];
			starts[i] = this.starts[from];
		}
		this.commands = commands;
		this.starts = starts;
		this.head = 0;
	}

	private void removeOldest() {
		this.commands[this.head] = null;
		this.head = (this.head + 1) & (this.commands.length - 1);
		this.size--;
	}

	private void forgetNewest(int count) {
		for (int i = 0; i < count && this.size > 0; i++) {
			int tail = (this.head + this.size - 1) & (this.commands.length - 1);
			this.commands[tail] = null;
			this.size--;
		}
	}

	private void recordDone(long now) {
		while (this.size > 0) {
			RedisCommand<?, ?, ?> command = this.commands[this.head];
			if (!command.isDone()) {
				return;
			}
			record(command, now - this.starts[this.head]);
			removeOldest();
		}
	}

	private void record(RedisCommand<?, ?, ?> command, long nanos) {
		EndpointTimers timers = this.timers;
		if (timers != null) {
			record(timers, command, nanos);
		}
	}

	// What Boot's observation tags, read off the completed command: its span tags the
	// exception a command completes with only when the command's output holds no error,
	// and Lettuce writes every exception but a cancellation into the output. Only a
	// future
	// tells a cancellation before the reply from one after it: Reactor cancels a reactive
	// command after its one reply too, and a plain command keeps the last state it is put
	// in.
	static void record(EndpointTimers timers, RedisCommand<?, ?, ?> command, long nanos) {
		CommandOutput<?, ?, ?> output = command.getOutput();
		CompletableFuture<?> future = (output != null && output.getError() == null)
				? CommandWrapper.unwrap(command, CompletableFuture.class) : null;
		Throwable failure = (future != null) ? failure(future) : null;
		if (failure != null) {
			timers.failed(command.getType(), failure.getClass().getSimpleName(), nanos);
		}
		else {
			timers.succeeded(command.getType(), nanos);
		}
	}

	private static @Nullable Throwable failure(CompletableFuture<?> future) {
		if (!future.isCompletedExceptionally()) {
			return null;
		}
		try {
			future.getNow(null);
			return null;
		}
		catch (CancellationException ex) {
			return ex;
		}
		catch (CompletionException ex) {
			return (ex.getCause() != null) ? ex.getCause() : ex;
		}
	}

	private void scheduleCheck(ChannelHandlerContext ctx, long delayNanos) {
		this.check = ctx.executor().schedule(() -> check(ctx), delayNanos, TimeUnit.NANOSECONDS);
	}

	private void check(ChannelHandlerContext ctx) {
		this.check = null;
		long now = System.nanoTime();
		recordDone(now);
		while (this.size > 0 && now - this.starts[this.head] >= SLOW_NANOS) {
			RedisCommand<?, ?, ?> command = this.commands[this.head];
			if (command.isDone()) {
				record(command, now - this.starts[this.head]);
			}
			else {
				follow(command, this.starts[this.head]);
			}
			removeOldest();
		}
		if (this.size > 0) {
			scheduleCheck(ctx, this.starts[this.head] + SLOW_NANOS - now);
		}
	}

	private void follow(RedisCommand<?, ?, ?> command, long start) {
		EndpointTimers timers = this.timers;
		if (timers != null && command instanceof CompleteableCommand<?> completeable) {
			completeable.onComplete(new Completion(timers, command, start));
		}
	}

	/**
	 * Records one command when it completes; never throws into the thread that completes
	 * or cancels it.
	 */
	private record Completion(EndpointTimers timers, RedisCommand<?, ?, ?> command,
			long start) implements BiConsumer<@Nullable Object, @Nullable Throwable> {

		@Override
		public void accept(@Nullable Object result, @Nullable Throwable error) {
			try {
				record(this.timers, this.command, System.nanoTime() - this.start);
			}
			catch (RuntimeException ex) {
				logger.debug("Recording a Redis command's meters failed", ex);
			}
		}

	}

}
