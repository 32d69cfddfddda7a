package io.github.lettucetuning.connection;

import java.util.function.Function;

import io.github.lettucetuning.eventloop.BlockingCallGuard;
import io.github.lettucetuning.eventloop.BlockingCallRefusedException;
import io.github.lettucetuning.eventloop.EventLoopThread;
import io.github.lettucetuning.resilience.OutageExceptions;
import io.github.lettucetuning.resilience.SubscriptionWatch;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;
import org.springframework.data.redis.connection.lettuce.LettuceSubscription;

/**
 * What both tuned connections add to Spring Data's: watched subscriptions, failed
 * commands reported and outages translated, and on close the event loop unmarked and the
 * hooks told. Created in the connection's constructor, where it marks the event loop the
 * connection is opened on.
 */
final class TunedBehaviour {

	private final @Nullable ConnectionHooks hooks;

	private final SubscriptionWatch subscriptionWatch;

	// The event loop this connection was opened on, if any, marked until it closes
	// (once: a connection may be closed twice).
	private @Nullable EventLoopThread loop;

	TunedBehaviour(@Nullable ConnectionHooks hooks, SubscriptionWatch subscriptionWatch) {
		this.hooks = hooks;
		this.subscriptionWatch = subscriptionWatch;
		this.loop = BlockingCallGuard.enterSynchronousCall();
	}

	LettuceSubscription subscription(MessageListener listener, StatefulRedisPubSubConnection<byte[], byte[]> connection,
			LettuceConnectionProvider provider) {
		return new WatchedLettuceSubscription(listener, connection, provider, this.subscriptionWatch);
	}

	DataAccessException translate(Exception cause, Function<Exception, DataAccessException> stock) {
		if (cause instanceof BlockingCallRefusedException refused) {
			return refused;
		}
		if (this.hooks != null) {
			this.hooks.failed(cause);
		}
		DataAccessException outage = OutageExceptions.translate(cause);
		return (outage != null) ? outage : stock.apply(cause);
	}

	void closed() {
		BlockingCallGuard.exitSynchronousCall(this.loop);
		this.loop = null;
		if (this.hooks != null) {
			this.hooks.closed();
		}
	}

}
