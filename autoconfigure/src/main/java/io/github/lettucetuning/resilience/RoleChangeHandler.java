package io.github.lettucetuning.resilience;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Queue;

import io.lettuce.core.protocol.RedisCommand;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RoleChangeGuard}'s handler in one channel's pipeline, just before Lettuce's
 * command handler: it sees each read before Lettuce decodes it. Before passing a read on,
 * it notes the oldest command waiting for a reply, the one the read answers first; after,
 * it checks whether that command is done with a {@code READONLY} error. A few field reads
 * per read, no allocation; the reply's bytes are left to Lettuce.
 */
final class RoleChangeHandler extends ChannelDuplexHandler {

	private final RoleChangeGuard guard;

	private final RoleChangeGuard.Link link;

	private final Queue<RedisCommand<?, ?, ?>> waiting;

	private final boolean subscriber;

	private volatile @Nullable ChannelHandlerContext context;

	private volatile @Nullable InetSocketAddress server;

	RoleChangeHandler(RoleChangeGuard guard, RoleChangeGuard.Link link, Queue<RedisCommand<?, ?, ?>> waiting,
			boolean subscriber) {
		this.guard = guard;
		this.link = link;
		this.waiting = waiting;
		this.subscriber = subscriber;
	}

	@Override
	public void handlerAdded(ChannelHandlerContext ctx) {
		this.context = ctx;
	}

	// The address the bootstrap resolved, which keeps the host name it was resolved
	// from.
	@Override
	public void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress,
			ChannelPromise promise) throws Exception {
		if (remoteAddress instanceof InetSocketAddress inet) {
			this.server = inet;
		}
		super.connect(ctx, remoteAddress, localAddress, promise);
	}

	@Override
	public void channelActive(ChannelHandlerContext ctx) throws Exception {
		this.guard.opened(this);
		super.channelActive(ctx);
	}

	@Override
	public void channelInactive(ChannelHandlerContext ctx) throws Exception {
		this.guard.closed(this);
		super.channelInactive(ctx);
	}

	@Override
	public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
		RedisCommand<?, ?, ?> oldest = this.waiting.peek();
		ctx.fireChannelRead(msg);
		if (oldest != null && oldest.isDone() && RoleChangeGuard.isReadOnly(oldest)) {
			this.guard.readOnly(this);
		}
	}

	RoleChangeGuard.Link link() {
		return this.link;
	}

	Queue<RedisCommand<?, ?, ?>> waiting() {
		return this.waiting;
	}

	boolean isSubscriber() {
		return this.subscriber;
	}

	@Nullable ChannelHandlerContext context() {
		return this.context;
	}

	@Nullable InetSocketAddress server() {
		return this.server;
	}

}
