package io.github.lettucetuning.health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.state.PoolSnapshot;

import org.springframework.boot.health.contributor.Health;

/**
 * The details of the {@code lettuce} health that need no round trip to Redis, all read
 * from one {@link ClientState}: the connection mode, the shared connections by state, the
 * dedicated pool, the Pub/Sub subscriptions a reconnect did not restore, the last role
 * change, the unreachable servers and the connections in a maintenance window.
 */
final class LettuceHealthDetails {

	private LettuceHealthDetails() {
	}

	static void describe(ClientState state, Health.Builder builder) {
		builder.withDetail("mode", state.mode());
		ClientState.Connections connections = state.connections();
		if (connections.total() > 0) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("total", connections.total());
			details.put("open", connections.open());
			details.put("disconnected", connections.disconnected());
			details.put("unopened", connections.unopened());
			builder.withDetail("connections", details);
		}
		PoolSnapshot pool = state.pool();
		if (pool != null) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("active", pool.active());
			details.put("idle", pool.idle());
			details.put("waiting", pool.waiting());
			if (pool.max() != null) {
				details.put("max", pool.max());
			}
			builder.withDetail("pool", details);
		}
		List<Map<String, Object>> unrestored = new ArrayList<>();
		for (ClientState.Unrestored subscription : state.subscriptions().unrestored()) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("subscription", subscription.subscription());
			details.put("server", subscription.server());
			details.put("since", subscription.since().toString());
			unrestored.add(details);
		}
		if (!unrestored.isEmpty()) {
			builder.withDetail("unrestoredSubscriptions", unrestored);
		}
		ClientState.RoleChanges roleChanges = state.roleChanges();
		ClientState.RoleChange change = (roleChanges != null) ? roleChanges.lastChange() : null;
		if (change != null) {
			builder.withDetail("roleChange", describe(change));
		}
		describeOutages(state, builder);
		int inWindow = state.connectionsInMaintenanceWindow();
		if (inWindow > 0) {
			builder.withDetail("connectionsInMaintenanceWindow", inWindow);
		}
	}

	static Map<String, Object> describe(ClientState.RoleChange change) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("at", change.at().toString());
		details.put("server", change.server());
		details.put("action", change.action());
		details.put("failedCommands", change.failedCommands());
		return details;
	}

	private static void describeOutages(ClientState state, Health.Builder builder) {
		List<Map<String, Object>> unreachable = new ArrayList<>();
		for (ClientState.Outage outage : state.unreachable()) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("server", outage.server());
			details.put("since", outage.since().toString());
			details.put("for", outage.duration().toMillis() + "ms");
			if (outage.rejection() != null) {
				details.put("rejected", outage.rejection());
			}
			if (outage.tls() != null) {
				details.put("tls", outage.tls());
			}
			unreachable.add(details);
		}
		if (!unreachable.isEmpty()) {
			builder.withDetail("unreachable", unreachable);
		}
	}

	static void describe(Health.Builder builder, List<ClientState.BlockedLoop> blocked) {
		if (blocked.isEmpty()) {
			return;
		}
		List<Map<String, Object>> loops = new ArrayList<>();
		for (ClientState.BlockedLoop loop : blocked) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("thread", loop.thread());
			details.put("since", loop.since().toString());
			details.put("for", loop.duration().toMillis() + "ms");
			details.put("at", loop.blockedAt());
			if (loop.queuedTasks() > 0) {
				details.put("queuedTasks", loop.queuedTasks());
			}
			loops.add(details);
		}
		builder.withDetail("blockedEventLoops", loops);
	}

}
