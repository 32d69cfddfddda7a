package io.github.lettucetuning.testsupport.chaos;

import java.util.List;

import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.TopologyKind;
import org.jspecify.annotations.Nullable;

/**
 * One server: nothing to reconcile, and none of the replication faults.
 */
final class StandaloneFaults implements TopologyFaults {

	private final RedisNode node;

	StandaloneFaults(RedisNode node) {
		this.node = node;
	}

	@Override
	public TopologyKind topology() {
		return TopologyKind.STANDALONE;
	}

	@Override
	public List<RedisNode> dataNodes() {
		return List.of(this.node);
	}

	@Override
	public boolean isMaster(RedisNode node) {
		return true;
	}

	@Override
	public @Nullable String reconcile() {
		return null;
	}

	@Override
	public String failover(ScheduledFault fault) {
		throw new NotInjectable("not on a standalone server");
	}

	@Override
	public String reshard(ScheduledFault fault) {
		throw new NotInjectable("not on a standalone server");
	}

	@Override
	public RedisNode laggingReplica(ScheduledFault fault) {
		throw new NotInjectable("not on a standalone server");
	}

}
