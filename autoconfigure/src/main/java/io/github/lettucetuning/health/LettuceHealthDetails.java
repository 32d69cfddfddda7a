package io.github.lettucetuning.health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.resilience.RoleChangeGuard;
import io.github.lettucetuning.resilience.SubscriptionWatch;
import io.github.lettucetuning.state.ConnectionSnapshot;
import io.github.lettucetuning.state.PoolSnapshot;

import org.springframework.boot.health.contributor.Health;

/**
 * The details of the {@code lettuce} health that need no round trip to Redis: the
 * connection mode, the shared connections by state, the dedicated pool and the Pub/Sub
 * subscriptions a reconnect did not restore.
 */
final class LettuceHealthDetails {

	private LettuceHealthDetails() {
	}

	static void describe(LettuceTuningConnectionFactory factory, Health.Builder builder) {
		builder.withDetail("mode", factory.getMode().name().toLowerCase(Locale.ROOT));
		ConnectionSnapshot connections = ConnectionSnapshot.of(factory);
		if (connections.size() > 0) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("total", connections.size());
			details.put("open", connections.open());
			details.put("disconnected", connections.disconnected());
			details.put("unopened", connections.unopened());
			builder.withDetail("connections", details);
		}
		PoolSnapshot pool = PoolSnapshot.of(factory);
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
		for (SubscriptionWatch.Unrestored subscription : factory.getSubscriptionWatch().unrestored()) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("subscription", subscription.subscription());
			details.put("server", subscription.server());
			details.put("since", subscription.since().toString());
			unrestored.add(details);
		}
		if (!unrestored.isEmpty()) {
			builder.withDetail("unrestoredSubscriptions", unrestored);
		}
		RoleChangeGuard roleChanges = factory.getRoleChangeGuard();
		RoleChangeGuard.RoleChange change = (roleChanges != null) ? roleChanges.lastChange() : null;
		if (change != null) {
			builder.withDetail("roleChange", describe(change));
		}
	}

	static Map<String, Object> describe(RoleChangeGuard.RoleChange change) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("at", change.at().toString());
		details.put("server", change.server());
		details.put("action", change.action());
		details.put("failedCommands", change.failedCommands());
		return details;
	}

}
