package io.github.lettucetuning.resilience;

import java.util.List;
import java.util.Queue;

import io.lettuce.core.protocol.RedisCommand;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The {@link OutageGuard}'s note of what a closing channel leaves unanswered, just before
 * Lettuce's command handler in the pipeline. When the channel closes, Lettuce moves the
 * commands it sent and got no reply for into the connection's queue, to send them again
 * after the reconnect, together with those it never sent. If the connection stays down
 * past the grace, those two kinds must fail differently: one that was sent may have run.
 * This handler sees the close first and hands the sent ones to the connection's link.
 * Nothing runs until the channel closes.
 */
final class UnansweredCommands extends ChannelInboundHandlerAdapter {

	static final String HANDLER_NAME = "lettuceTuningUnansweredCommands";

	private final ConnectionLink link;

	private final Queue<RedisCommand<?, ?, ?>> awaitingReplies;

	UnansweredCommands(ConnectionLink link, Queue<RedisCommand<?, ?, ?>> awaitingReplies) {
		this.link = link;
		this.awaitingReplies = awaitingReplies;
	}

	@Override
	public void channelInactive(ChannelHandlerContext ctx) throws Exception {
		if (!this.awaitingReplies.isEmpty()) {
			this.link.unanswered(List.copyOf(this.awaitingReplies));
		}
		super.channelInactive(ctx);
	}

}
