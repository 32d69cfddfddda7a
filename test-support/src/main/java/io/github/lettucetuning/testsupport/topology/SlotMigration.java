package io.github.lettucetuning.testsupport.topology;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RespClient;

/**
 * Moves slots from one master to another with the protocol {@code redis-cli --cluster
 * reshard} uses, over connections kept open for the whole migration.
 */
final class SlotMigration implements AutoCloseable {

	private static final int KEYS_PER_BATCH = 100;

	private static final Duration MIGRATE_TIMEOUT = Duration.ofSeconds(10);

	private final RedisNode to;

	private final String fromId;

	private final String toId;

	private final List<RespClient> connections = new ArrayList<>();

	private final RespClient source;

	private final RespClient target;

	private final List<RespClient> otherMasters = new ArrayList<>();

	SlotMigration(RedisNode from, String fromId, RedisNode to, String toId, List<RedisNode> otherMasters) {
		this.to = to;
		this.fromId = fromId;
		this.toId = toId;
		try {
			this.source = open(from);
			this.target = open(to);
			otherMasters.forEach((master) -> this.otherMasters.add(open(master)));
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
	}

	/**
	 * Move one slot: mark it importing/migrating, {@code MIGRATE} its keys in batches,
	 * then assign it with {@code SETSLOT NODE} on the target, the source and the other
	 * masters (that order keeps clients from being redirected back and forth).
	 * @param slot the slot
	 */
	void move(int slot) {
		String slotText = Integer.toString(slot);
		this.target.command("CLUSTER", "SETSLOT", slotText, "IMPORTING", this.fromId);
		this.source.command("CLUSTER", "SETSLOT", slotText, "MIGRATING", this.toId);
		while (migrateBatch(slotText)) {
			// Until GETKEYSINSLOT finds nothing left
		}
		this.target.command("CLUSTER", "SETSLOT", slotText, "NODE", this.toId);
		this.source.command("CLUSTER", "SETSLOT", slotText, "NODE", this.toId);
		this.otherMasters.forEach((master) -> master.command("CLUSTER", "SETSLOT", slotText, "NODE", this.toId));
	}

	private boolean migrateBatch(String slot) {
		Object keys = this.source.command("CLUSTER", "GETKEYSINSLOT", slot, Integer.toString(KEYS_PER_BATCH));
		if (!(keys instanceof List<?> batch) || batch.isEmpty()) {
			return false;
		}
		List<String> migrate = new ArrayList<>(List.of("MIGRATE", this.to.host(), Integer.toString(this.to.port()), "",
				"0", Long.toString(MIGRATE_TIMEOUT.toMillis()), "REPLACE", "KEYS"));
		batch.forEach((key) -> migrate.add(String.valueOf(key)));
		this.source.command(migrate.toArray(String[]::new));
		return true;
	}

	private RespClient open(RedisNode node) {
		RespClient connection = node.connect(MIGRATE_TIMEOUT);
		this.connections.add(connection);
		return connection;
	}

	@Override
	public void close() {
		this.connections.forEach(RespClient::close);
	}

}
