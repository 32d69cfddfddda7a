package io.github.lettucetuning.observation;

import java.util.Collection;

import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.RedisCommand;
import org.jspecify.annotations.Nullable;

/**
 * Tells a reactive command that its subscriber cancelled before its reply from one
 * cancelled after it. Lettuce's reactive publisher cancels the plain command inside the
 * wrapper it writes ({@code RedisPublisher.SubscriptionCommand}), so no callback runs;
 * Reactor also cancels a {@code Mono}'s command after its one value, which leaves the
 * plain command cancelled too. What differs is whether the reply has been read: until
 * then Lettuce's command handler keeps the command on its stack of commands awaiting a
 * reply ({@code CommandHandler#getStack()}). Both are read through Lettuce's public API.
 * <p>
 * A reply that arrives after a cancel completes the plain command again and leaves the
 * stack, so the answer holds only until then: the handler asks before the reply, at the
 * end of a read batch or at its check, on the channel's event loop, the one thread that
 * changes the stack. Only a cancelled command is looked for on the stack.
 */
final class SilentCancellation {

	private SilentCancellation() {
	}

	/**
	 * Return whether a command, as written to the channel, was cancelled underneath its
	 * wrappers before a reply completed it.
	 * @param command the command written
	 * @param awaitingReplies the command handler's stack of commands awaiting a reply, or
	 * {@code null} if unknown
	 * @return whether it was cancelled before its reply
	 */
	static boolean cancelledBeforeReply(RedisCommand<?, ?, ?> command,
			@Nullable Collection<? extends RedisCommand<?, ?, ?>> awaitingReplies) {
		if (awaitingReplies == null) {
			return false;
		}
		RedisCommand<?, ?, ?> plain = CommandWrapper.unwrap(command);
		if (!plain.isCancelled()) {
			return false;
		}
		for (RedisCommand<?, ?, ?> awaiting : awaitingReplies) {
			if (CommandWrapper.unwrap(awaiting) == plain) {
				return true;
			}
		}
		return false;
	}

}
