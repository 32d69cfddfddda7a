package io.github.lettucetuning.resilience;

import java.util.EnumSet;
import java.util.Set;

import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.RedisCommand;

/**
 * The commands a healthy server may leave unanswered for as long as they ask: a blocking
 * pop or read waits for data, {@code WAIT} for replicas. While one of them is the oldest
 * command on a connection and its caller still waits, silence is no stall. Once its
 * caller gave up (the command timed out or was cancelled), the server still holds the
 * connection for it, and every command behind it waits for nobody's reply.
 */
final class BlockingCommands {

	private static final Set<CommandType> BLOCKING = EnumSet.of(CommandType.BLPOP, CommandType.BRPOP,
			CommandType.BRPOPLPUSH, CommandType.BLMOVE, CommandType.BLMPOP, CommandType.BZPOPMIN, CommandType.BZPOPMAX,
			CommandType.BZMPOP, CommandType.XREAD, CommandType.XREADGROUP, CommandType.WAIT);

	private BlockingCommands() {
	}

	static boolean isBlocking(RedisCommand<?, ?, ?> command) {
		ProtocolKeyword type = command.getType();
		return type instanceof CommandType commandType && BLOCKING.contains(commandType);
	}

	// A blocking command whose caller still waits for it.
	static boolean isAwaited(RedisCommand<?, ?, ?> command) {
		return isBlocking(command) && !callerDone(command);
	}

	// A blocking command whose caller gave up while the server may still block on it.
	static boolean isAbandoned(RedisCommand<?, ?, ?> command) {
		return isBlocking(command) && callerDone(command);
	}

	// The caller's command, not the wrapper on the stack: a cluster connection's
	// ClusterCommand says it is done only once the node answers, while the command it
	// wraps completes when its caller's timeout fires or it is cancelled.
	// docs/upstream.md#a-cluster-command-done-only-when-its-node-answers
	private static boolean callerDone(RedisCommand<?, ?, ?> command) {
		return command.isDone() || CommandWrapper.unwrap(command).isDone();
	}

}
