package io.github.lettucetuning.endpoint;

import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.state.PoolSnapshot;
import io.github.lettucetuning.state.TimerSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * What the client is doing now, as the {@code lettuce} endpoint shows it: the parts of
 * the {@link ClientState} the health and the meters read too.
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
 * @param nearCache the near cache's tracking, size and reads, or {@code null} when it is
 * off
 * @since 0.1.0
 */
public record LiveState(ClientState.Connections connections, @Nullable PoolSnapshot pool, TimerState timer,
		ClientState.@Nullable Events events, ClientState.@Nullable Topology topology,
		ClientState.@Nullable Outages outages, ClientState.@Nullable EventLoops eventLoops,
		ClientState.Subscriptions subscriptions, ClientState.@Nullable Credentials credentials,
		ClientState.@Nullable RoleChanges roleChanges, ClientState.@Nullable NearCache nearCache) {

	/**
	 * Show a state as the endpoint does.
	 * @param state the state
	 * @return the live state
	 */
	public static LiveState of(ClientState state) {
		return new LiveState(state.connections(), state.pool(), TimerState.of(state.timer()), state.events(),
				state.topology(), state.outages(), state.eventLoops(), state.subscriptions(), state.credentials(),
				state.roleChanges(), state.nearCache());
	}

	/**
	 * The expiry timer's counts.
	 *
	 * @param pending timeouts scheduled and neither expired nor cancelled, when known
	 * @param expired timeouts that fired since startup, when known
	 */
	public record TimerState(@Nullable Long pending, @Nullable Long expired) {

		static TimerState of(TimerSnapshot timer) {
			return new TimerState(timer.pending(), timer.expired());
		}

	}

}
