package io.github.lettucetuning.state;

import java.time.Clock;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.event.AskRedirectionEvent;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.event.MovedRedirectionEvent;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.EventBus;
import io.lettuce.core.event.cluster.AdaptiveRefreshTriggeredEvent;
import io.lettuce.core.event.connection.ReauthenticationEvent;
import io.lettuce.core.event.connection.ReauthenticationFailedEvent;
import io.lettuce.core.event.connection.ReconnectAttemptEvent;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * Counts what the Lettuce client goes through, from its {@link EventBus}: reconnect
 * attempts and failures, cluster topology changes (and what the last one changed),
 * adaptive refresh triggers, MOVED and ASK redirections, re-authentications with new
 * credentials and their failures; and command timeouts, which the event bus does not
 * carry and which are {@link #recordCommandException(Throwable) reported} by the
 * connection factory instead.
 * <p>
 * Each event costs one counter increment on Lettuce's event executor, so the recorder
 * keeps up with any event rate (Lettuce's bus drops events for subscribers that fall
 * behind). Redirection events carry the key of the command; the recorder keeps none of
 * it. Counts start when the recorder subscribes: connections opened before that are not
 * seen.
 *
 * @since 0.1.0
 */
public final class ClientEventRecorder implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(ClientEventRecorder.class);

	// How deep to look for a timeout among the causes of a translated exception.
	private static final int MAX_CAUSE_DEPTH = 8;

	private final Clock clock;

	private final LongAdder reconnectAttempts = new LongAdder();

	private final LongAdder reconnectFailures = new LongAdder();

	private final LongAdder topologyChanges = new LongAdder();

	private final LongAdder movedRedirections = new LongAdder();

	private final LongAdder askRedirections = new LongAdder();

	private final LongAdder commandTimeouts = new LongAdder();

	private final LongAdder reauthentications = new LongAdder();

	private final LongAdder reauthenticationFailures = new LongAdder();

	private volatile @Nullable Instant lastReauthentication;

	private volatile @Nullable Instant lastReauthenticationFailure;

	private final Map<RefreshTrigger, LongAdder> refreshTriggers = new EnumMap<>(RefreshTrigger.class);

	private final Disposable subscription;

	private volatile @Nullable TopologyChange lastTopologyChange;

	/**
	 * Create a recorder subscribed to the given event bus.
	 * @param eventBus the event bus of the client resources
	 */
	public ClientEventRecorder(EventBus eventBus) {
		this(eventBus, Clock.systemUTC());
	}

	ClientEventRecorder(EventBus eventBus, Clock clock) {
		this.clock = clock;
		for (RefreshTrigger trigger : RefreshTrigger.values()) {
			this.refreshTriggers.put(trigger, new LongAdder());
		}
		this.subscription = eventBus.get()
			.subscribe(this::onEvent,
					(ex) -> logger.warn("Lettuce event bus failed; events are no longer counted", ex));
	}

	void onEvent(Event event) {
		if (event instanceof ReconnectAttemptEvent) {
			this.reconnectAttempts.increment();
		}
		else if (event instanceof ReconnectFailedEvent) {
			this.reconnectFailures.increment();
		}
		else if (event instanceof MovedRedirectionEvent) {
			this.movedRedirections.increment();
		}
		else if (event instanceof AskRedirectionEvent) {
			this.askRedirections.increment();
		}
		else if (event instanceof ClusterTopologyChangedEvent changed) {
			// The description first: whoever sees the count go up must find what changed.
			this.lastTopologyChange = TopologyChange.between(this.clock.instant(), changed.before(), changed.after());
			this.topologyChanges.increment();
		}
		else if (event instanceof ReauthenticationEvent) {
			this.lastReauthentication = this.clock.instant();
			this.reauthentications.increment();
		}
		else if (event instanceof ReauthenticationFailedEvent) {
			// Only the time: the cause may be the provider's own exception, whose message
			// nobody vetted for secrets.
			this.lastReauthenticationFailure = this.clock.instant();
			this.reauthenticationFailures.increment();
		}
		else if (event instanceof AdaptiveRefreshTriggeredEvent triggered) {
			LongAdder count = this.refreshTriggers.get(triggered.getRefreshTrigger());
			if (count != null) {
				count.increment();
			}
		}
	}

	/**
	 * Record an exception a Redis command raised; counts it when it is (or was caused by)
	 * a {@link RedisCommandTimeoutException}. Called on failures only, never on the
	 * success path.
	 * @param exception the exception
	 */
	public void recordCommandException(Throwable exception) {
		if (isTimeout(exception)) {
			this.commandTimeouts.increment();
		}
	}

	static boolean isTimeout(Throwable exception) {
		Throwable current = exception;
		for (int depth = 0; current != null && depth < MAX_CAUSE_DEPTH; depth++) {
			if (current instanceof RedisCommandTimeoutException) {
				return true;
			}
			current = current.getCause();
		}
		return false;
	}

	/**
	 * Return the number of reconnect attempts.
	 * @return the reconnect attempts
	 */
	public long reconnectAttempts() {
		return this.reconnectAttempts.sum();
	}

	/**
	 * Return the number of failed reconnect attempts.
	 * @return the failed reconnect attempts
	 */
	public long reconnectFailures() {
		return this.reconnectFailures.sum();
	}

	/**
	 * Return the number of topology refreshes that changed the client's cluster view.
	 * @return the topology changes
	 */
	public long topologyChanges() {
		return this.topologyChanges.sum();
	}

	/**
	 * Return how often an adaptive refresh trigger fired.
	 * @param trigger the trigger
	 * @return the number of times it fired
	 */
	public long refreshTriggers(RefreshTrigger trigger) {
		LongAdder count = this.refreshTriggers.get(trigger);
		return (count != null) ? count.sum() : 0;
	}

	/**
	 * Return the number of MOVED redirections followed.
	 * @return the MOVED redirections
	 */
	public long movedRedirections() {
		return this.movedRedirections.sum();
	}

	/**
	 * Return the number of ASK redirections followed.
	 * @return the ASK redirections
	 */
	public long askRedirections() {
		return this.askRedirections.sum();
	}

	/**
	 * Return the number of commands that timed out.
	 * @return the command timeouts
	 */
	public long commandTimeouts() {
		return this.commandTimeouts.sum();
	}

	/**
	 * Return the number of live connections that re-authenticated with new credentials.
	 * @return the re-authentications
	 */
	public long reauthentications() {
		return this.reauthentications.sum();
	}

	/**
	 * Return the number of re-authentications that failed, or credential streams that
	 * ended with an error.
	 * @return the failed re-authentications
	 */
	public long reauthenticationFailures() {
		return this.reauthenticationFailures.sum();
	}

	/**
	 * Return when a connection last re-authenticated.
	 * @return the time, or {@code null} if none has
	 */
	public @Nullable Instant lastReauthentication() {
		return this.lastReauthentication;
	}

	/**
	 * Return when a re-authentication last failed.
	 * @return the time, or {@code null} if none has
	 */
	public @Nullable Instant lastReauthenticationFailure() {
		return this.lastReauthenticationFailure;
	}

	/**
	 * Return what the last topology change changed.
	 * @return the last change, or {@code null} if the topology has not changed
	 */
	public @Nullable TopologyChange lastTopologyChange() {
		return this.lastTopologyChange;
	}

	/**
	 * Stop listening to the event bus.
	 */
	@Override
	public void close() {
		this.subscription.dispose();
	}

}
