package io.github.lettucetuning.autoconfigure.connection;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails.Node;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;

/**
 * Where Redis is, decided as Spring Boot decides it: a user's configuration bean beats
 * the connection details, and Sentinel beats cluster, which beats static
 * master/replica, which beats standalone.
 *
 * @author lettuce-tuning
 */
final class RedisTopology {

	private final DataRedisProperties properties;

	private final DataRedisConnectionDetails details;

	RedisTopology(DataRedisProperties properties, DataRedisConnectionDetails details) {
		this.properties = properties;
		this.details = details;
	}

	RedisConfiguration resolve(ObjectProvider<RedisStandaloneConfiguration> standalone,
			ObjectProvider<RedisSentinelConfiguration> sentinel, ObjectProvider<RedisClusterConfiguration> cluster,
			ObjectProvider<RedisStaticMasterReplicaConfiguration> masterReplica) {
		RedisConfiguration configuration = firstOf(sentinel.getIfAvailable(), sentinel(),
				cluster.getIfAvailable(), cluster(), masterReplica.getIfAvailable(), masterReplica());
		return (configuration != null) ? configuration : firstOf(standalone.getIfAvailable(), standalone());
	}

	private static @Nullable RedisConfiguration firstOf(@Nullable RedisConfiguration... candidates) {
		for (RedisConfiguration candidate : candidates) {
			if (candidate != null) {
				return candidate;
			}
		}
		return null;
	}

	private RedisStandaloneConfiguration standalone() {
		DataRedisConnectionDetails.Standalone standalone = this.details.getStandalone();
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(standalone.getHost(),
				standalone.getPort());
		configuration.setUsername(this.details.getUsername());
		configuration.setPassword(RedisPassword.of(this.details.getPassword()));
		configuration.setDatabase(standalone.getDatabase());
		return configuration;
	}

	private @Nullable RedisSentinelConfiguration sentinel() {
		DataRedisConnectionDetails.Sentinel sentinel = this.details.getSentinel();
		if (sentinel == null) {
			return null;
		}
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration();
		configuration.master(sentinel.getMaster());
		configuration.setSentinels(nodes(sentinel.getNodes()));
		configuration.setUsername(this.details.getUsername());
		configuration.setPassword(RedisPassword.of(this.details.getPassword()));
		configuration.setSentinelUsername(sentinel.getUsername());
		configuration.setSentinelPassword(RedisPassword.of(sentinel.getPassword()));
		configuration.setDatabase(sentinel.getDatabase());
		return configuration;
	}

	private @Nullable RedisClusterConfiguration cluster() {
		DataRedisConnectionDetails.Cluster cluster = this.details.getCluster();
		if (cluster == null) {
			return null;
		}
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		configuration.setClusterNodes(nodes(cluster.getNodes()));
		DataRedisProperties.Cluster clusterProperties = this.properties.getCluster();
		if (clusterProperties != null && clusterProperties.getMaxRedirects() != null) {
			configuration.setMaxRedirects(clusterProperties.getMaxRedirects());
		}
		configuration.setUsername(this.details.getUsername());
		configuration.setPassword(RedisPassword.of(this.details.getPassword()));
		return configuration;
	}

	private @Nullable RedisStaticMasterReplicaConfiguration masterReplica() {
		DataRedisConnectionDetails.MasterReplica masterReplica = this.details.getMasterReplica();
		if (masterReplica == null || masterReplica.getNodes().isEmpty()) {
			return null;
		}
		List<Node> nodes = masterReplica.getNodes();
		RedisStaticMasterReplicaConfiguration configuration = new RedisStaticMasterReplicaConfiguration(
				nodes.get(0).host(), nodes.get(0).port());
		nodes.stream().skip(1).forEach((node) -> configuration.addNode(node.host(), node.port()));
		configuration.setUsername(this.details.getUsername());
		configuration.setPassword(RedisPassword.of(this.details.getPassword()));
		return configuration;
	}

	private static List<RedisNode> nodes(List<Node> nodes) {
		return nodes.stream().map((node) -> new RedisNode(node.host(), node.port())).toList();
	}

}
