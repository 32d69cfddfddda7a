package io.github.lettucetuning.cluster;

import java.util.function.Predicate;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;

/**
 * Keeps nodes the client cannot use out of Lettuce's cluster view. Lettuce applies it
 * after every topology load, so a master the cluster flagged as failed drops out of the
 * view and {@code closeStaleConnections} closes its connection, releasing the commands
 * queued on it instead of leaving them to their timeout.
 * <p>
 * Each exclusion can be switched off: nodes flagged {@code fail} (the cluster agreed the
 * node is down), nodes flagged {@code fail?} (PFAIL: the node that answered the topology
 * query could not reach it for {@code cluster-node-timeout}), and nodes without an
 * address ({@code noaddr}, or no host or port).
 * <p>
 * Use it with {@link ClusterClientOptions.Builder#nodeFilter(Predicate)}.
 *
 * @since 0.1.0
 */
public final class ClusterNodeFilter implements Predicate<RedisClusterNode> {

	private final boolean excludeFailed;

	private final boolean excludePossiblyFailed;

	private final boolean excludeWithoutAddress;

	/**
	 * Create a new filter.
	 * @param excludeFailed whether to leave out nodes flagged {@code fail}
	 * @param excludePossiblyFailed whether to leave out nodes flagged {@code fail?}
	 * @param excludeWithoutAddress whether to leave out nodes flagged {@code noaddr} or
	 * lacking a host or port
	 */
	public ClusterNodeFilter(boolean excludeFailed, boolean excludePossiblyFailed, boolean excludeWithoutAddress) {
		this.excludeFailed = excludeFailed;
		this.excludePossiblyFailed = excludePossiblyFailed;
		this.excludeWithoutAddress = excludeWithoutAddress;
	}

	/**
	 * Return a filter with every exclusion on.
	 * @return the filter
	 */
	public static ClusterNodeFilter excludingUnusableNodes() {
		return new ClusterNodeFilter(true, true, true);
	}

	@Override
	public boolean test(RedisClusterNode node) {
		if (this.excludeFailed && node.is(NodeFlag.FAIL)) {
			return false;
		}
		if (this.excludePossiblyFailed && node.is(NodeFlag.EVENTUAL_FAIL)) {
			return false;
		}
		return !(this.excludeWithoutAddress && hasNoAddress(node));
	}

	private static boolean hasNoAddress(RedisClusterNode node) {
		RedisURI uri = node.getUri();
		return node.is(NodeFlag.NOADDR) || uri == null || uri.getHost() == null || uri.getHost().isEmpty()
				|| uri.getPort() <= 0;
	}

	public boolean isExcludeFailed() {
		return this.excludeFailed;
	}

	public boolean isExcludePossiblyFailed() {
		return this.excludePossiblyFailed;
	}

	public boolean isExcludeWithoutAddress() {
		return this.excludeWithoutAddress;
	}

	@Override
	public String toString() {
		return "ClusterNodeFilter[excludeFailed=" + this.excludeFailed + ", excludePossiblyFailed="
				+ this.excludePossiblyFailed + ", excludeWithoutAddress=" + this.excludeWithoutAddress + "]";
	}

}
