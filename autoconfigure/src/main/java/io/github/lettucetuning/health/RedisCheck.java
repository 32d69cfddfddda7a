package io.github.lettucetuning.health;

import java.time.Duration;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.state.ServerIdentity;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.Health;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;

/**
 * The round trip of the {@code lettuce} health check, on the connection application
 * commands use. A standalone server answers {@code INFO server} (for its name and
 * version) and {@code INFO replication} (for its role), sent together, a cluster
 * {@code CLUSTER INFO} and then {@code INFO server} from the node the client uses by
 * default; a user whose ACL denies those ({@code NOPERM}) gets {@code PING} instead, plus
 * the client's own cluster view, and the denial is remembered so later checks go straight
 * to {@code PING}. Each command waits at most the timeout.
 */
// Works around Boot's health reporting redis_version, which Valkey fixes:
// docs/upstream.md#the-servers-own-version-in-health
final class RedisCheck {

	private final LettuceTuningConnectionFactory connectionFactory;

	private final Duration timeout;

	private volatile boolean infoDenied;

	private volatile boolean clusterInfoDenied;

	private volatile @Nullable ServerIdentity server;

	RedisCheck(LettuceTuningConnectionFactory connectionFactory, Duration timeout) {
		this.connectionFactory = connectionFactory;
		this.timeout = timeout;
	}

	/**
	 * Return the server as the last {@code INFO server} of a check described it.
	 * @return the server, or {@code null} before a check read it or when the user may not
	 * run {@code INFO}
	 */
	@Nullable ServerIdentity server() {
		return this.server;
	}

	Result run() throws Exception {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			@SuppressWarnings("unchecked")
			RedisClusterAsyncCommands<byte[], byte[]> commands = (RedisClusterAsyncCommands<byte[], byte[]>) connection
				.getNativeConnection();
			return (connection instanceof RedisClusterConnection) ? cluster(commands) : standalone(commands);
		}
	}

	private Result standalone(RedisClusterAsyncCommands<byte[], byte[]> commands) throws Exception {
		Map<String, Object> details = new LinkedHashMap<>();
		if (!this.infoDenied) {
			try {
				// Sent together: one round trip
				RedisFuture<String> replication = commands.info("replication");
				ServerIdentity identity = serverInfo(commands);
				String role = role(await(replication));
				this.server = identity.withRole(role);
				describe(identity, details);
				if (role != null) {
					details.put("role", role);
				}
				details.put("check", "info");
				return new Result(true, details);
			}
			catch (NoPermissionException ex) {
				this.infoDenied = true;
			}
		}
		await(commands.ping());
		details.put("check", "ping");
		return new Result(true, details);
	}

	private Result cluster(RedisClusterAsyncCommands<byte[], byte[]> commands) throws Exception {
		if (!this.clusterInfoDenied) {
			try {
				Map<String, String> info = parse(await(commands.clusterInfo()));
				Result result = clusterResult(info.getOrDefault("cluster_state", "unknown"),
						integer(info, "cluster_known_nodes"), integer(info, "cluster_size"),
						integer(info, "cluster_slots_ok"),
						integer(info, "cluster_slots_pfail") + integer(info, "cluster_slots_fail"), "cluster-info");
				describeClusterServer(commands, result.details());
				return result;
			}
			catch (NoPermissionException ex) {
				this.clusterInfoDenied = true;
			}
		}
		await(commands.ping());
		Result result = fromPartitions(this.connectionFactory.getRequiredNativeClient());
		describeClusterServer(commands, result.details());
		return result;
	}

	// A user may run CLUSTER INFO but not INFO, or the other way round: the cluster's
	// state is the check, the server's name and version only a detail.
	private void describeClusterServer(RedisClusterAsyncCommands<byte[], byte[]> commands, Map<String, Object> details)
			throws Exception {
		if (this.infoDenied) {
			return;
		}
		try {
			describe(serverInfo(commands), details);
		}
		catch (NoPermissionException ex) {
			this.infoDenied = true;
		}
	}

	private ServerIdentity serverInfo(RedisClusterAsyncCommands<byte[], byte[]> commands) throws Exception {
		ServerIdentity identity = ServerIdentity.fromInfo(await(commands.info("server")));
		this.server = identity;
		return identity;
	}

	// The role as the server states it: a standalone endpoint whose server says replica
	// refuses writes (a demoted primary, or an application pointed at a replica).
	private static @Nullable String role(String replication) {
		String role = parse(replication).get("role");
		if (role == null) {
			return null;
		}
		return switch (role) {
			case "master" -> "primary";
			case "slave" -> "replica";
			default -> role;
		};
	}

	// Spring Boot's key "version", with the server's own version rather than the
	// redis_version Boot reads (frozen at 7.2.4 by Valkey), and the server's name.
	private static void describe(ServerIdentity identity, Map<String, Object> details) {
		details.put("version", identity.version());
		details.put("server", identity.name());
	}

	// The client's view, for users who may not run CLUSTER INFO: the slots served by
	// masters that are not flagged failing.
	private static Result fromPartitions(AbstractRedisClient client) {
		if (!(client instanceof RedisClusterClient clusterClient)) {
			return clusterResult("unknown", 0, 0, 0, 0, "partitions");
		}
		Partitions partitions = clusterClient.getPartitions();
		BitSet covered = new BitSet(SlotHash.SLOT_COUNT);
		int masters = 0;
		for (RedisClusterNode node : partitions) {
			if (node.is(NodeFlag.UPSTREAM) && !node.hasNoSlots() && !node.is(NodeFlag.FAIL)
					&& !node.is(NodeFlag.EVENTUAL_FAIL)) {
				masters++;
				node.getSlots().forEach(covered::set);
			}
		}
		int slots = covered.cardinality();
		return clusterResult((slots == SlotHash.SLOT_COUNT) ? "ok" : "fail", partitions.size(), masters, slots,
				SlotHash.SLOT_COUNT - slots, "partitions");
	}

	private static Result clusterResult(String state, int knownNodes, int size, int slotsCovered, int slotsFailing,
			String source) {
		Map<String, Object> cluster = new LinkedHashMap<>();
		cluster.put("state", state);
		cluster.put("knownNodes", knownNodes);
		cluster.put("size", size);
		cluster.put("slotsCovered", slotsCovered);
		cluster.put("slotsFailing", slotsFailing);
		cluster.put("source", source);
		Map<String, Object> details = new LinkedHashMap<>();
		// Spring Boot's keys first, so dashboards built on its redis health keep working
		details.put("cluster_size", size);
		details.put("slots_up", slotsCovered);
		details.put("slots_fail", slotsFailing);
		details.put("cluster", cluster);
		return new Result(!"fail".equals(state), details);
	}

	private <T> T await(RedisFuture<T> future) throws Exception {
		try {
			return future.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			future.cancel(true);
			throw ex;
		}
		catch (ExecutionException ex) {
			Throwable cause = ex.getCause();
			if (cause instanceof RedisCommandExecutionException && cause.getMessage() != null
					&& cause.getMessage().startsWith("NOPERM")) {
				throw new NoPermissionException();
			}
			throw (cause instanceof Exception exception) ? exception : ex;
		}
	}

	static Map<String, String> parse(String info) {
		Map<String, String> values = new LinkedHashMap<>();
		for (String line : info.split("\r?\n")) {
			int colon = line.indexOf(':');
			if (colon > 0 && !line.startsWith("#")) {
				values.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
			}
		}
		return values;
	}

	private static int integer(Map<String, String> info, String key) {
		try {
			return Integer.parseInt(info.getOrDefault(key, "0"));
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/**
	 * The outcome of a check: up or down, with its details.
	 */
	record Result(boolean up, Map<String, Object> details) {

		void applyTo(Health.Builder builder) {
			if (this.up) {
				builder.up();
			}
			else {
				builder.down();
			}
			builder.withDetails(this.details);
		}

	}

	/**
	 * The ACL of the connection's user denies the command.
	 */
	private static final class NoPermissionException extends Exception {

		NoPermissionException() {
			super(null, null, false, false);
		}

	}

}
