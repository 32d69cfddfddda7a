package io.github.lettucetuning.resilience;

import java.net.SocketAddress;
import java.util.Collection;
import java.util.Queue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.eventloop.BlockingCallGuard;
import io.github.lettucetuning.eventloop.BlockingCallRefusedException;
import io.github.lettucetuning.eventloop.LoopWatch;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandHandler;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.MaintenanceAwareConnectionWatchdog;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.pubsub.PubSubCommandHandler;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.concurrent.ScheduledFuture;
import org.jspecify.annotations.Nullable;

/**
 * The {@link OutageGuard}'s handler in one channel's pipeline. At the tail it sees the
 * channel become active only once Lettuce's handshake is done, and every command write
 * before Lettuce's command handler puts it on its stack of commands awaiting a reply.
 * <p>
 * Stall detection costs the hot path one field check per write and one clock read per
 * read batch. A check runs on the channel's event loop when the stall timeout since the
 * last progress (a read, or the first write after an idle spell) has passed, and only
 * while commands wait: an idle connection schedules nothing, a busy one about one check
 * per timeout. A check that finds commands waiting, nothing read for the timeout, and the
 * oldest command not one that may block on purpose, fails the waiting commands and closes
 * the channel; Lettuce then reconnects as after any disconnect.
 * <p>
 * A blocking command blocks on purpose only while its caller waits for it. Once the
 * caller gave up (a block time longer than the command timeout, a cancel), the server may
 * go on blocking the connection for nobody, and a pool hands it to the next borrower,
 * whose commands queue behind it: the same check then reopens the connection, without
 * counting the server as down.
 * <p>
 * The silence must be the server's, not the loop's: a loop that the application blocked,
 * or a process that did not run (a long GC pause), read nothing either, while the replies
 * sat in the socket. So a check that finds the timeout passed does not decide: it looks
 * again once the loop has had one more turn at reading. A task scheduled from a task runs
 * no earlier than the loop's next round of tasks, which follows a round of I/O; if that
 * round read nothing, nothing was waiting in the socket, and the server was silent the
 * whole time.
 * <p>
 * It also tells the loop's {@link LoopWatch}, if any, of every command written, and
 * refuses a command whose caller is this loop's own thread waiting in a synchronous call
 * ({@link BlockingCallGuard}): one type test of the current thread per write.
 */
final class OutageHandler extends ChannelDuplexHandler implements LoopWatch.Connection {

	// Long enough that the second look cannot run in the same round of tasks as the
	// first, short next to any stall timeout.
	private static final long SECOND_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

	private final ConnectionLink link;

	private final OutageOptions options;

	private @Nullable Queue<RedisCommand<?, ?, ?>> waiting;

	private @Nullable ScheduledFuture<?> check;

	private boolean secondLook;

	private @Nullable LoopWatch loopWatch;

	private long lastReadNanos;

	private long lastProgressNanos;

	// Until Lettuce's handshake is done, the writes are its commands.
	private boolean active;

	private volatile boolean subscriber;

	private volatile @Nullable ChannelHandlerContext context;

	private long activeNanos;

	OutageHandler(ConnectionLink link, OutageOptions options) {
		this.link = link;
		this.options = options;
	}

	@Override
	public void handlerAdded(ChannelHandlerContext ctx) {
		CommandHandler commandHandler = ctx.pipeline().get(CommandHandler.class);
		if (commandHandler != null) {
			this.waiting = commandHandler.getStack();
			this.link.attach(commandHandler.getEndpoint());
		}
		this.subscriber = commandHandler instanceof PubSubCommandHandler;
		this.context = ctx;
		MaintenanceAwareConnectionWatchdog watchdog = ctx.pipeline().get(MaintenanceAwareConnectionWatchdog.class);
		if (watchdog != null) {
			watchdog.setMaintenanceEventListener(this.link.maintenanceWindow());
		}
	}

	@Override
	public void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress,
			ChannelPromise promise) throws Exception {
		this.link.connecting(ctx.channel(), remoteAddress);
		promise.addListener((connect) -> {
			if (!connect.isSuccess()) {
				this.link.connectFailed();
			}
		});
		super.connect(ctx, remoteAddress, localAddress, promise);
	}

	// Lettuce's handlers pass user events on to the tail, but not exceptions: a
	// failed TLS handshake reaches this handler as Netty's completion event.
	@Override
	public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
		if (evt instanceof SslHandshakeCompletionEvent handshake && !handshake.isSuccess()) {
			this.link.tlsFailed(handshake.cause());
		}
		super.userEventTriggered(ctx, evt);
	}

	@Override
	public void channelActive(ChannelHandlerContext ctx) throws Exception {
		this.active = true;
		this.activeNanos = System.nanoTime();
		this.lastReadNanos = this.activeNanos;
		this.link.connected(ctx.channel());
		this.link.guard().opened(this);
		this.loopWatch = this.link.guard().watch(ctx.channel().eventLoop());
		if (this.loopWatch != null) {
			this.loopWatch.add(this);
		}
		super.channelActive(ctx);
	}

	@Override
	public void channelInactive(ChannelHandlerContext ctx) throws Exception {
		stopChecking();
		if (this.loopWatch != null) {
			this.loopWatch.remove(this);
		}
		this.link.guard().closed(this);
		this.link.disconnected(ctx.channel());
		super.channelInactive(ctx);
	}

	@Override
	public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
		if (BlockingCallGuard.callerWaitsOnThisLoop()) {
			refuse(msg, promise);
			return;
		}
		if (!this.active) {
			this.link.handshakeWritten(msg);
		}
		if (this.check == null && this.options.stallDetection() && this.waiting != null) {
			startChecking(ctx);
		}
		if (this.link.maintenanceWindow().isOpen()) {
			this.link.guard().maintenanceNotifications().commandsRelaxed(commandCount(msg));
		}
		super.write(ctx, msg, promise);
		if (this.loopWatch != null) {
			this.loopWatch.commandWritten();
		}
	}

	private static int commandCount(Object msg) {
		return (msg instanceof Collection<?> commands) ? commands.size() : 1;
	}

	// The caller is this loop's own thread, inside a synchronous call: it would wait for
	// a reply that only it can read. The command completes now, failed, and is never
	// sent; the promise succeeds so that Lettuce neither retries it nor logs a write
	// failure.
	private static void refuse(Object msg, ChannelPromise promise) {
		BlockingCallRefusedException refusal = BlockingCallGuard.refusal();
		if (msg instanceof RedisCommand<?, ?, ?> command) {
			command.completeExceptionally(refusal);
		}
		else if (msg instanceof Collection<?> commands) {
			for (Object command : commands) {
				if (command instanceof RedisCommand<?, ?, ?> redisCommand) {
					redisCommand.completeExceptionally(refusal);
				}
			}
		}
		promise.trySuccess();
	}

	@Override
	public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
		this.lastReadNanos = System.nanoTime();
		super.channelReadComplete(ctx);
	}

	// A PING through the whole pipeline: this handler starts the stall check for it, and
	// Lettuce's handler expects its reply as for a PING the application sends.
	void probeIfSilentSince(String server, long sinceNanos) {
		ChannelHandlerContext ctx = this.context;
		if (!this.subscriber || ctx == null || !server.equals(this.link.server())) {
			return;
		}
		try {
			ctx.executor().execute(() -> {
				if (ctx.channel().isActive() && this.activeNanos - sinceNanos < 0
						&& this.lastReadNanos - sinceNanos < 0) {
					ctx.channel().writeAndFlush(new Command<>(CommandType.PING, new StatusOutput<>(StringCodec.UTF8)));
				}
			});
		}
		catch (RejectedExecutionException ex) {
			// The client is shutting down
		}
	}

	@Override
	public int waitingCommands() {
		Queue<RedisCommand<?, ?, ?>> waiting = this.waiting;
		// Read off the event loop for a gauge: a moment's inexactness is fine, a negative
		// is not.
		return (waiting != null) ? Math.max(0, waiting.size()) : 0;
	}

	private void startChecking(ChannelHandlerContext ctx) {
		this.lastProgressNanos = System.nanoTime();
		scheduleCheck(ctx, this.options.stallTimeout().toNanos());
	}

	private void scheduleCheck(ChannelHandlerContext ctx, long delayNanos) {
		this.check = ctx.executor().schedule(() -> check(ctx), delayNanos, TimeUnit.NANOSECONDS);
	}

	private void stopChecking() {
		ScheduledFuture<?> check = this.check;
		if (check != null) {
			check.cancel(false);
			this.check = null;
		}
		this.secondLook = false;
	}

	private void check(ChannelHandlerContext ctx) {
		this.check = null;
		Queue<RedisCommand<?, ?, ?>> waiting = this.waiting;
		RedisCommand<?, ?, ?> oldest = (waiting != null) ? waiting.peek() : null;
		if (oldest == null || !ctx.channel().isActive()) {
			this.secondLook = false;
			return;
		}
		long now = System.nanoTime();
		// Lettuce relaxes its timeouts while the server announces maintenance; the
		// silence then is announced, not a stall.
		if (BlockingCommands.isAwaited(oldest) || this.link.maintenanceWindow().isOpen()) {
			this.lastProgressNanos = now;
		}
		else if (this.lastReadNanos - this.lastProgressNanos > 0) {
			this.lastProgressNanos = this.lastReadNanos;
		}
		long timeout = this.options.stallTimeout().toNanos();
		long silence = now - this.lastProgressNanos;
		if (silence < timeout) {
			this.secondLook = false;
			scheduleCheck(ctx, timeout - silence);
		}
		else if (this.secondLook && BlockingCommands.isAbandoned(oldest)) {
			release(ctx, waiting, oldest);
		}
		else if (this.secondLook) {
			stall(ctx, waiting);
		}
		else {
			this.secondLook = true;
			scheduleCheck(ctx, SECOND_LOOK_NANOS);
		}
	}

	// The server may be healthy and blocked on purpose: the connection is reopened, but
	// the server is not marked down. If it is down, the reconnect finds out.
	private void release(ChannelHandlerContext ctx, Queue<RedisCommand<?, ?, ?>> waiting,
			RedisCommand<?, ?, ?> abandoned) {
		String silence = OutageGuard.seconds(this.options.stallTimeout());
		String type = abandoned.getType().toString();
		failWaiting(waiting, new RedisStalledException("Redis at " + this.link.server() + " read nothing for " + silence
				+ " while this command waited behind a " + type + " whose caller had already given up (it timed out "
				+ "or was cancelled); the server may still block on it, so the connection is closed and reopened. "
				+ "Keep a blocking command's own timeout below the command timeout."));
		ctx.channel().close();
	}

	private void stall(ChannelHandlerContext ctx, Queue<RedisCommand<?, ?, ?>> waiting) {
		String silence = OutageGuard.seconds(this.options.stallTimeout());
		String cause = "nothing read for " + silence + " while " + waiting.size() + " commands waited";
		RedisStalledException stalled = new RedisStalledException(
				"Redis at " + this.link.server() + " read nothing for " + silence
						+ " while this command waited for its reply; the connection is closed and reopened. The "
						+ "server may still run the command if it wakes up.");
		this.link.stalled(this.lastProgressNanos, cause);
		failWaiting(waiting, stalled);
		ctx.channel().close();
	}

	private static void failWaiting(Queue<RedisCommand<?, ?, ?>> waiting, RedisStalledException failure) {
		RedisCommand<?, ?, ?> command;
		while ((command = waiting.poll()) != null) {
			command.completeExceptionally(failure);
		}
	}

}
