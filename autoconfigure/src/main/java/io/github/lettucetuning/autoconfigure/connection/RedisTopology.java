package io.github.lettucetuning.autoconfigure.connection;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration.WithAuthentication;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;

/**
 * Where Redis is, as the Spring Data configuration the factory connects with. The order
 * is the one Spring Boot documents, so that swapping Boot's factory for ours never points
 * an application at other servers: Sentinel, then cluster, then static master/replica,
 * then standalone; for each, a configuration bean the application declares comes before
 * what the connection details describe.
 */
final class RedisTopology {

	private final DataRedisConnectionDetails details;

	private final @Nullable Integer maxRedirects;

	/**
	 * Create a topology.
	 * @param details Boot's connection details
	 * @param maxRedirects {@code spring.data.redis.cluster.max-redirects}, which the
	 * connection details do not carry
	 */
	RedisTopology(DataRedisConnectionDetails details, @Nullable Integer maxRedirects) {
		this.details = details;
		this.maxRedirects = maxRedirects;
	}

	RedisConfiguration resolve(ObjectProvider<RedisStandaloneConfiguration> standalone,
			ObjectProvider<RedisSentinelConfiguration> sentinel, ObjectProvider<RedisClusterConfiguration> cluster,
			ObjectProvider<RedisStaticMasterReplicaConfiguration> masterReplica) {
		List<Supplier<@Nullable RedisConfiguration>> candidates = List.of(sentinel::getIfAvailable,
				this::sentinelFromDetails, cluster::getIfAvailable, this::clusterFromDetails,
				masterReplica::getIfAvailable, this::masterReplicaFromDetails, standalone::getIfAvailable);
		return candidates.stream()
			.map(Supplier::get)
			.filter(Objects::nonNull)
			.findFirst()
			.orElseGet(this::standaloneFromDetails);
	}

	private RedisConfiguration standaloneFromDetails() {
		DataRedisConnectionDetails.Standalone server = this.details.getStandalone();
		RedisStandaloneConfiguration standalone = withCredentials(new RedisStandaloneConfiguration());
		standalone.setHostName(server.getHost());
		standalone.setPort(server.getPort());
		standalone.setDatabase(server.getDatabase());
		return standalone;
	}

	private @Nullable RedisConfiguration sentinelFromDetails() {
		DataRedisConnectionDetails.Sentinel described = this.details.getSentinel();
		if (described == null) {
			return null;
		}
		RedisSentinelConfiguration sentinel = withCredentials(new RedisSentinelConfiguration());
		sentinel.master(described.getMaster());
		sentinel.setSentinels(redisNodes(described.getNodes()));
		// The sentinels may have credentials of their own, apart from the data nodes'.
		sentinel.setSentinelUsername(described.getUsername());
		sentinel.setSentinelPassword(RedisPassword.of(described.getPassword()));
		sentinel.setDatabase(described.getDatabase());
		return sentinel;
	}

	private @Nullable RedisConfiguration clusterFromDetails() {
		DataRedisConnectionDetails.Cluster described = this.details.getCluster();
		if (described == null) {
			return null;
		}
		RedisClusterConfiguration cluster = withCredentials(new RedisClusterConfiguration());
		cluster.setClusterNodes(redisNodes(described.getNodes()));
		if (this.maxRedirects != null) {
			cluster.setMaxRedirects(this.maxRedirects);
		}
		return cluster;
	}

	// Lettuce finds out which node is the master; the order of the nodes does not matter.
	private @Nullable RedisConfiguration masterReplicaFromDetails() {
		DataRedisConnectionDetails.MasterReplica described = this.details.getMasterReplica();
		if (described == null || described.getNodes().isEmpty()) {
			return null;
		}
		RedisStaticMasterReplicaConfiguration masterReplica = withCredentials(
				new RedisStaticMasterReplicaConfiguration());
		described.getNodes().forEach((node) -> masterReplica.node(node.host(), node.port()));
		return masterReplica;
	}

	private <C extends WithAuthentication> C withCredentials(C configuration) {
		configuration.setUsername(this.details.getUsername());
		configuration.setPassword(RedisPassword.of(this.details.getPassword()));
		return configuration;
	}

	private static List<RedisNode> redisNodes(List<Node> nodes) {
		return nodes.stream()
			.map((node) -> RedisNode.newRedisNode().listeningAt(node.host(), node.port()).build())
			.toList();
	}

}
