package io.github.lettucetuning.endpoint;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.credentials.CredentialsTracker;
import io.github.lettucetuning.eventloop.BlockedEventLoop;
import io.github.lettucetuning.eventloop.EventLoopWatchdog;
import io.github.lettucetuning.resilience.MaintenanceNotifications;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.resilience.RoleChangeGuard;
import io.github.lettucetuning.resilience.SubscriptionWatch;
import io.github.lettucetuning.state.ClientEventRecorder;
import io.github.lettucetuning.state.ConnectionSnapshot;
import io.github.lettucetuning.state.PoolSnapshot;
import io.github.lettucetuning.state.TopologyChange;
import io.github.lettucetuning.timeout.WheelTimer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

/**
 * What the client is doing now: its shared connections, the dedicated pool, pending
 * timeouts and the client events counted so far.
 *
 * @param connections the shared native connections by state
 * @param pool the dedicated pool, or {@code null} when dedicated connections are not
 * pooled
 * @param timer the expiry timer's counts
 * @param events the client events counted since startup, or {@code null} when not
 * recorded
 * @param topology cluster topology changes, or {@code null} when not connected to a
 * cluster
 * @param outages the commands waiting and the unreachable servers, or {@code null} when
 * lettuce-tuning's outage guard is not on the connections
 * @param eventLoops the event loops found blocked, or {@code null} when blocked loops are
 * not detected
 * @param subscriptions the Pub/Sub subscriptions that reconnects did not restore
 * @param credentials who the client authenticates as and its re-authentications, or
 * {@code null} when not followed
 * @param roleChanges the demoted primaries followed, or {@code null} when the connections
 * do not follow them (a cluster, read-from, or switched off)
 * @since 0.1.0
 */
public record LiveState(Connections connections, @Nullable PoolSnapshot pool, TimerState timer, @Nullable Events events,
		@Nullable Topology topology, @Nullable Outages outages, @Nullable EventLoops eventLoops,
		Subscriptions subscriptions, @Nullable Credentials credentials, @Nullable RoleChanges roleChanges) {

	/**
	 * Read the live state.
	 * @param factory the connection factory
	 * @param timer the timer of the client resources
	 * @param recorder the recorder of client events, if any
	 * @param guard the outage guard on the connections, if any
	 * @param credentials the tracker of the client's credentials, if any
	 * @return the state
	 */
	public static LiveState of(LettuceTuningConnectionFactory factory, Timer timer,
			@Nullable ClientEventRecorder recorder, @Nullable OutageGuard guard,
			@Nullable CredentialsTracker credentials) {
		ConnectionSnapshot connections = ConnectionSnapshot.of(factory);
		Events events = (recorder != null) ? new Events(recorder.reconnectAttempts(), recorder.reconnectFailures(),
				recorder.commandTimeouts(), recorder.movedRedirections(), recorder.askRedirections()) : null;
		Topology topology = (recorder != null && factory.isClusterAware()) ? Topology.of(recorder) : null;
		return new LiveState(
				new Connections(connections.size(), connections.open(), connections.disconnected(),
						connections.unopened(), inFlight(factory, factory.getSharedInFlight()),
						inFlight(factory, factory.getReactiveInFlight())),
				PoolSnapshot.of(factory), TimerState.of(timer), events, topology,
				(guard != null) ? new Outages(guard.waitingCommands(), guard.outages(), guard.connectionsMoved(),
						Maintenance.of(guard.maintenanceNotifications())) : null,
				EventLoops.of((guard != null) ? guard.watchdog() : null),
				Subscriptions.of(factory.getSubscriptionWatch()), Credentials.of(factory, credentials, recorder),
				RoleChanges.of(factory.getRoleChangeGuard()));
	}

	/**
	 * Servers found demoted to replicas while connections to them stayed open, and what
	 * was done.
	 *
	 * @param reconnects how many times a connection was closed because its server had
	 * become a replica
	 * @param minInterval the shortest time between two such reconnects of one connection
	 * @param lastChange the last role change acted on, or {@code null} if there was none
	 */
	public record RoleChanges(long reconnects, Duration minInterval, RoleChangeGuard.@Nullable RoleChange lastChange) {

		static @Nullable RoleChanges of(@Nullable RoleChangeGuard guard) {
			return (guard != null) ? new RoleChanges(guard.reconnects(), guard.minInterval(), guard.lastChange())
					: null;
		}

	}

	/**
	 * The Pub/Sub connections of subscriptions and what reconnects did not restore.
	 *
	 * @param connections the Pub/Sub connections of open subscriptions
	 * @param lost subscriptions found not restored after a reconnect since startup
	 * @param unrestored the subscriptions not restored now, oldest first
	 */
	public record Subscriptions(int connections, long lost, List<SubscriptionWatch.Unrestored> unrestored) {

		static Subscriptions of(SubscriptionWatch watch) {
			return new Subscriptions(watch.connections(), watch.lost(), watch.unrestored());
		}

	}

	/**
	 * Who the client authenticates as, never with what secret, and how its live
	 * connections took new credentials.
	 *
	 * @param user the user the data connections authenticate as, or {@code null} if they
	 * send no credentials
	 * @param source the type of the application's credentials provider or factory, or
	 * {@code null} for Spring Boot's properties
	 * @param choice which credentials bean was taken and why, or why none was
	 * ({@code lettuce.tuning.credentials.provider})
	 * @param rotating whether the provider streams new credentials
	 * @param reauthenticate when Lettuce re-authenticates live connections
	 * ({@code ON_NEW_CREDENTIALS} or {@code DEFAULT}, never)
	 * @param lastIssued when the provider last issued credentials, or {@code null}
	 * @param reauthentications live connections re-authenticated since startup, or
	 * {@code null} when client events are not recorded
	 * @param reauthenticationFailures re-authentications that failed, or {@code null}
	 * @param lastReauthentication when a connection last re-authenticated, or
	 * {@code null}
	 * @param lastReauthenticationFailure when a re-authentication last failed, or
	 * {@code null}
	 */
	public record Credentials(@Nullable String user, @Nullable String source, @Nullable String choice, boolean rotating,
			String reauthenticate, @Nullable Instant lastIssued, @Nullable Long reauthentications,
			@Nullable Long reauthenticationFailures, @Nullable Instant lastReauthentication,
			@Nullable Instant lastReauthenticationFailure) {

		static @Nullable Credentials of(LettuceTuningConnectionFactory factory, @Nullable CredentialsTracker tracker,
				@Nullable ClientEventRecorder recorder) {
			if (tracker == null) {
				return null;
			}
			String reauthenticate = factory.getClientConfiguration()
				.getClientOptions()
				.map(ClientOptions::getReauthenticateBehaviour)
				.orElse(ClientOptions.DEFAULT_REAUTHENTICATE_BEHAVIOUR)
				.name();
			return new Credentials(tracker.user(), tracker.source(), tracker.reason(), tracker.streaming(),
					reauthenticate, tracker.issuedAt(), (recorder != null) ? recorder.reauthentications() : null,
					(recorder != null) ? recorder.reauthenticationFailures() : null,
					(recorder != null) ? recorder.lastReauthentication() : null,
					(recorder != null) ? recorder.lastReauthenticationFailure() : null);
		}

	}

	/**
	 * What the watchdog over the event loops has seen.
	 *
	 * @param threshold how long a loop may not run while commands wait before it counts
	 * as blocked
	 * @param blockedSpells how many times a loop was found blocked since startup
	 * @param blocked the loops blocked now, longest first
	 * @param lastBlocked the last spell that ended, or {@code null}
	 * @param processPauses how many times the whole process was found paused while
	 * commands waited (a long GC pause, CPU throttling), which is blamed on no loop
	 */
	public record EventLoops(Duration threshold, long blockedSpells, List<BlockedEventLoop> blocked,
			@Nullable BlockedEventLoop lastBlocked, long processPauses) {

		static @Nullable EventLoops of(@Nullable EventLoopWatchdog watchdog) {
			if (watchdog == null) {
				return null;
			}
			return new EventLoops(watchdog.threshold(), watchdog.blockedSpells(), watchdog.blockedNow(),
					watchdog.lastBlocked(), watchdog.pauses());
		}

	}

	/**
	 * What the outage guard sees now.
	 *
	 * @param waitingCommands commands sent on open connections that await a reply
	 * @param unreachable the connections whose commands fail fast, longest outage first
	 * @param connectionsMoved the reconnects that landed on another server address than
	 * the connection had before (a {@code MOVING} notification, a DNS name that moved, a
	 * Sentinel failover, a demoted primary)
	 * @param maintenance the maintenance notifications of the servers
	 */
	public record Outages(long waitingCommands, List<OutageGuard.Outage> unreachable, long connectionsMoved,
			Maintenance maintenance) {
	}

	/**
	 * The maintenance notifications of the servers (Redis Enterprise, Redis Cloud).
	 *
	 * @param notifications the notifications the connections received
	 * @param connectionsInWindow the connections in a maintenance window the server
	 * announced and has not yet ended
	 * @param relaxedCommands the commands written to a connection in a window, which
	 * Lettuce gives its relaxed timeout and the stall check lets wait
	 * @param refusal the server that first refused them and its reply, after which new
	 * connections do not ask, or {@code null}
	 */
	public record Maintenance(long notifications, int connectionsInWindow, long relaxedCommands,
			@Nullable String refusal) {

		static Maintenance of(MaintenanceNotifications maintenance) {
			return new Maintenance(maintenance.received(), maintenance.connectionsInWindow(),
					maintenance.relaxedCommands(), maintenance.refusal());
		}

	}

	// Pooled mode shares no connection, so there is nothing in flight to list.
	private static List<Integer> inFlight(LettuceTuningConnectionFactory factory, int[] counts) {
		return factory.getShareNativeConnection() ? Arrays.stream(counts).boxed().toList() : List.of();
	}

	/**
	 * Shared native connections by state, and what is in flight on each.
	 *
	 * @param total the shared connections the mode provides for
	 * @param open the connected ones
	 * @param disconnected the ones Lettuce is reconnecting
	 * @param unopened the ones not opened yet
	 * @param inFlight the operations in flight on each shared connection of the
	 * imperative API, in member order, in every selection policy
	 * @param reactiveInFlight the commands in flight on each shared connection of the
	 * reactive API, in member order
	 */
	public record Connections(int total, int open, int disconnected, int unopened, List<Integer> inFlight,
			List<Integer> reactiveInFlight) {
	}

	/**
	 * The expiry timer's counts.
	 *
	 * @param pending timeouts scheduled and neither expired nor cancelled, when known
	 * @param expired timeouts that fired since startup, when known
	 */
	public record TimerState(@Nullable Long pending, @Nullable Long expired) {

		static TimerState of(Timer timer) {
			if (timer instanceof WheelTimer wheel) {
				return new TimerState(wheel.pendingTimeouts(), wheel.expiredTimeouts());
			}
			if (timer instanceof HashedWheelTimer hashed) {
				return new TimerState(hashed.pendingTimeouts(), null);
			}
			return new TimerState(null, null);
		}

	}

	/**
	 * Client events since startup.
	 *
	 * @param reconnectAttempts reconnect attempts
	 * @param reconnectFailures failed reconnect attempts
	 * @param commandTimeouts commands that timed out
	 * @param movedRedirections MOVED redirections followed
	 * @param askRedirections ASK redirections followed
	 */
	public record Events(long reconnectAttempts, long reconnectFailures, long commandTimeouts, long movedRedirections,
			long askRedirections) {
	}

	/**
	 * Cluster topology changes since startup.
	 *
	 * @param changes topology refreshes that changed the client's view
	 * @param lastChange what the last one changed, or {@code null} if none did
	 * @param refreshTriggers how often each adaptive refresh trigger fired
	 */
	public record Topology(long changes, @Nullable TopologyChange lastChange, Map<String, Long> refreshTriggers) {

		static Topology of(ClientEventRecorder recorder) {
			Map<String, Long> triggers = new LinkedHashMap<>();
			for (RefreshTrigger trigger : RefreshTrigger.values()) {
				triggers.put(EffectiveConfigurationReader.id(trigger.name()), recorder.refreshTriggers(trigger));
			}
			return new Topology(recorder.topologyChanges(), recorder.lastTopologyChange(), triggers);
		}

	}

}
