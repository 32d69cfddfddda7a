package io.github.lettucetuning.observation;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;

import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandHandler;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.ProtocolKeyword;
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
 * {@link #record(EndpointTimers, RedisCommand, long)}). A reactive command that its
 * subscriber cancels before the reply is cancelled inside Lettuce without a callback: it
 * is recorded with {@code error=CancellationException} when the handler next looks at it
 * before its reply, at the end of a read batch or at the check (a followed one is watched
 * by the check until it completes), so up to {@value #SLOW_MILLIS} ms later than Boot's
 * observation records it, at the cancel.
 */
final class CommandMetersHandler extends ChannelDuplexHandler {

	private static final Log logger = LogFactory.getLog(CommandMetersHandler.class);

	static final long SLOW_MILLIS = 50;

	private static final String CANCELLED = CancellationException.class.getSimpleName();

	private static final long SLOW_NANOS = TimeUnit.MILLISECONDS.toNanos(SLOW_MILLIS);

	private static final int INITIAL_CAPACITY = 64;

	// How far behind a waiting head to look for a reply that passed it; commands behind
	// more redirections than that wait for the check
	private static final int REDIRECT_SCAN = 16;

	private final CommandMeters meters;

	private @Nullable EndpointTimers timers;

	private RedisCommand<?, ?, ?>[] commands = new RedisCommand<?, ?, ?>[INITIAL_CAPACITY];

	private long[] starts = new long[INITIAL_CAPACITY];

	private int head;

	private int size;

	private @Nullable ScheduledFuture<?> check;

	// Followed commands that their subscriber may cancel without a callback (no future
	// in their chain): the check looks for the cancel while the channel is active
	private final List<Completion> watched = new ArrayList<>();

	// Lettuce's command handler's stack of commands awaiting a reply: tells a reactive
	// command cancelled before its reply (SilentCancellation).
	private @Nullable Collection<? extends RedisCommand<?, ?, ?>> awaitingReplies;

	CommandMetersHandler(CommandMeters meters) {
		this.meters = meters;
	}

	@Override
	public void handlerAdded(ChannelHandlerContext ctx) {
		CommandHandler commandHandler = ctx.pipeline().get(CommandHandler.class);
		if (commandHandler != null) {
			awaitingReplies(commandHandler.getStack());
		}
	}

	// Lettuce's command handler's stack; a test's stand-in for it.
	void awaitingReplies(Collection<? extends RedisCommand<?, ?, ?>> awaitingReplies) {
		this.awaitingReplies = awaitingReplies;
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
			follow(this.commands[this.head], this.starts[this.head], false);
			removeOldest();
		}
		this.watched.clear();
		ScheduledFuture<?> check = this.check;
		if (check != null) {
			check.cancel(false);
			this.check = null;
		}
		closed();
		super.channelInactive(ctx);
	}

	@Override
	public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
		closed();
		super.handlerRemoved(ctx);
	}

	private void closed() {
		EndpointTimers timers = this.timers;
		ActiveCommands active = (timers != null) ? timers.active() : null;
		if (active != null) {
			active.closed(this);
		}
	}

	private void written(ChannelHandlerContext ctx, RedisCommand<?, ?, ?> command, long now) {
		if (!(command instanceof CompleteableCommand<?>) || command.isDone()) {
			return;
		}
		if (this.timers == null) {
			EndpointTimers timers = this.meters.endpoint(ctx.channel().remoteAddress());
			ActiveCommands active = timers.active();
			if (active != null) {
				active.opened(this);
			}
			this.timers = timers;
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
			if (command.isDone()) {
				record(command, now - this.starts[this.head]);
			}
			else if (answeredBehindHead() || replyRead(command)) {
				// Its reply passed without completing it: a cluster redirection (MOVED or
				// ASK), which sends it again. Boot's observation of this write ends when
				// the command completes, wherever, and so does the callback
				follow(command, this.starts[this.head], true);
			}
			else {
				return;
			}
			removeOldest();
		}
	}

	// Whether one of the few commands behind the head completed with a reply: replies
	// come in order, so the head's has been read. Only read while the head waits at the
	// end of a read batch; a command completed by a timeout or a cancel says nothing.
	private boolean answeredBehindHead() {
		int mask = this.commands.length - 1;
		int limit = Math.min(this.size, REDIRECT_SCAN + 1);
		for (int i = 1; i < limit; i++) {
			RedisCommand<?, ?, ?> command = this.commands[(this.head + i) & mask];
			if (command.isDone()) {
				CommandOutput<?, ?, ?> output = command.getOutput();
				if (!command.isCancelled() && output != null && output.getError() == null) {
					return true;
				}
			}
		}
		return false;
	}

	// Whether Lettuce took the waiting head off its stack, which it does when it reads
	// the head's reply: a redirection whose reply ended its read batch, with no reply
	// behind it yet. Lettuce's handler may stack a wrapper of what was written (its
	// latency recorder's): the commands underneath are compared.
	private boolean replyRead(RedisCommand<?, ?, ?> head) {
		if (!(this.awaitingReplies instanceof Queue<? extends RedisCommand<?, ?, ?>> stack)) {
			return false;
		}
		RedisCommand<?, ?, ?> oldest = stack.peek();
		return oldest == null || CommandWrapper.unwrap(oldest) != CommandWrapper.unwrap(head);
	}

	private void record(RedisCommand<?, ?, ?> command, long nanos) {
		EndpointTimers timers = this.timers;
		if (timers != null) {
			record(timers, command, nanos, this.awaitingReplies);
		}
	}

	// What Boot's observation tags, read off the completed command: its span tags the
	// exception a command completes with only when the command's output holds no error,
	// and Lettuce writes every exception but a cancellation into the output. A future in
	// the command's chain tells a cancellation before the reply from one after it; a
	// reactive command has none, and whether it still awaits its reply tells it
	// (SilentCancellation; only on the channel's loop, given the command handler's
	// stack).
	static void record(EndpointTimers timers, RedisCommand<?, ?, ?> command, long nanos,
			@Nullable Collection<? extends RedisCommand<?, ?, ?>> awaitingReplies) {
		CommandOutput<?, ?, ?> output = command.getOutput();
		if (output != null && output.getError() != null) {
			timers.succeeded(command.getType(), nanos);
			return;
		}
		CompletableFuture<?> future = CommandWrapper.unwrap(command, CompletableFuture.class);
		Throwable failure = (future != null) ? failure(future) : null;
		if (failure != null) {
			timers.failed(command.getType(), failure.getClass().getSimpleName(), nanos);
		}
		else if (future == null && SilentCancellation.cancelledBeforeReply(command, awaitingReplies)) {
			timers.failed(command.getType(), CANCELLED, nanos);
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
				follow(command, this.starts[this.head], true);
			}
			removeOldest();
		}
		this.watched.removeIf((completion) -> completion.settle(now));
		if (this.size > 0) {
			scheduleCheck(ctx, this.starts[this.head] + SLOW_NANOS - now);
		}
		else if (!this.watched.isEmpty()) {
			scheduleCheck(ctx, SLOW_NANOS);
		}
	}

	private void follow(RedisCommand<?, ?, ?> command, long start, boolean watch) {
		EndpointTimers timers = this.timers;
		if (timers != null && command instanceof CompleteableCommand<?> completeable) {
			Completion completion = new Completion(timers, command, start, this.awaitingReplies);
			if (watch && CommandWrapper.unwrap(command, CompletableFuture.class) == null) {
				this.watched.add(completion);
			}
			ActiveCommands active = timers.active();
			if (active != null) {
				active.follow(completion);
			}
			completeable.onComplete(completion);
			// A command that completed already may keep a late callback without running
			// it
			if (active != null && command.isDone()) {
				active.unfollow(completion);
			}
		}
	}

	/**
	 * Add the commands of a type in this channel's ring that are not done yet to a tally.
	 * Runs on the thread reading the registry, without synchronising with the event loop:
	 * the ring's fields are read once each and every slot is checked for {@code null}.
	 * @param type the command type
	 * @param tally the tally to add to
	 */
	void tally(ProtocolKeyword type, ActiveCommands.Tally tally) {
		RedisCommand<?, ?, ?>[] commands = this.commands;
		long[] starts = this.starts;
		int head = this.head;
		int size = Math.min(this.size, Math.min(commands.length, starts.length));
		int mask = Math.min(commands.length, starts.length) - 1;
		for (int i = 0; i < size; i++) {
			int index = (head + i) & mask;
			RedisCommand<?, ?, ?> command = commands[index];
			if (command != null && type.equals(command.getType()) && !command.isDone()) {
				tally.add(starts[index]);
			}
		}
	}

	/**
	 * Records one command when it completes, or when the handler's check finds it
	 * cancelled before its reply, whichever comes first; never throws into the thread
	 * that completes or cancels it.
	 */
	private static final class Completion
			implements BiConsumer<@Nullable Object, @Nullable Throwable>, ActiveCommands.Followed {

		private final EndpointTimers timers;

		private final RedisCommand<?, ?, ?> command;

		private final long start;

		// Read only by the handler's check, on the channel's event loop.
		private final @Nullable Collection<? extends RedisCommand<?, ?, ?>> awaitingReplies;

		private final AtomicBoolean recorded = new AtomicBoolean();

		Completion(EndpointTimers timers, RedisCommand<?, ?, ?> command, long start,
				@Nullable Collection<? extends RedisCommand<?, ?, ?>> awaitingReplies) {
			this.awaitingReplies = awaitingReplies;
			this.timers = timers;
			this.command = command;
			this.start = start;
		}

		@Override
		public void accept(@Nullable Object result, @Nullable Throwable error) {
			try {
				if (claim()) {
					record(this.timers, this.command, System.nanoTime() - this.start, null);
				}
			}
			catch (RuntimeException ex) {
				logger.debug("Recording a Redis command's meters failed", ex);
			}
		}

		/**
		 * Record the command if it was cancelled before its reply.
		 * @param now the time of the check
		 * @return whether the command is recorded, by this call or by its callback
		 */
		boolean settle(long now) {
			if (this.recorded.get()) {
				return true;
			}
			if (this.command.isDone() && SilentCancellation.cancelledBeforeReply(this.command, this.awaitingReplies)
					&& claim()) {
				this.timers.failed(this.command.getType(), CANCELLED, now - this.start);
				return true;
			}
			return false;
		}

		private boolean claim() {
			if (!this.recorded.compareAndSet(false, true)) {
				return false;
			}
			ActiveCommands active = this.timers.active();
			if (active != null) {
				active.unfollow(this);
			}
			return true;
		}

		@Override
		public ProtocolKeyword type() {
			return this.command.getType();
		}

		@Override
		public long start() {
			return this.start;
		}

		@Override
		public boolean isDone() {
			return this.command.isDone();
		}

	}

}
