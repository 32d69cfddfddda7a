package io.github.lettucetuning.autoconfigure.connection;

import io.github.lettucetuning.autoconfigure.ExplicitProperties;
import io.github.lettucetuning.autoconfigure.LettuceTuningProperties;
import io.github.lettucetuning.autoconfigure.SharedConnectionCount;
import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import io.github.lettucetuning.connection.ConnectionMode;
import io.github.lettucetuning.connection.ConnectionSharing;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.connection.ServingLoops;
import io.github.lettucetuning.resilience.RoleChangeGuard;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.autoconfigure.socket.NettyCustomizerContribution;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.thread.Threading;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConfiguration.ClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.util.ClassUtils;

/**
 * Publishes a {@link LettuceTuningConnectionFactory} in place of Spring Boot's factory,
 * built from Boot's connection details, {@code spring.data.redis.*} properties and every
 * Boot customizer bean.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
public final class LettuceTuningConnectionConfiguration {

	@Bean
	@ConditionalOnMissingBean(RedisConnectionFactory.class)
	LettuceTuningConnectionFactory redisConnectionFactory(LettuceTuningProperties tuning,
			DataRedisProperties properties, DataRedisConnectionDetails connectionDetails,
			ClientResources clientResources, Environment environment, ResourceLoader resourceLoader,
			ObjectProvider<RedisStandaloneConfiguration> standalone,
			ObjectProvider<RedisSentinelConfiguration> sentinel, ObjectProvider<RedisClusterConfiguration> cluster,
			ObjectProvider<RedisStaticMasterReplicaConfiguration> masterReplica,
			ObjectProvider<LettuceClientOptionsBuilderCustomizer> optionsCustomizers,
			ObjectProvider<LettuceClientConfigurationBuilderCustomizer> configurationCustomizers,
			ObjectProvider<ServingLoops> servingLoops, ObjectProvider<SslBundles> sslBundles,
			ObjectProvider<RoleChangeGuard> roleChangeGuard, ObjectProvider<OutageGuard> outageGuard) {
		RedisConfiguration configuration = new RedisTopology(connectionDetails, maxRedirects(properties))
			.resolve(standalone, sentinel, cluster, masterReplica);
		SslBundle sslBundle = connectionDetails.getSslBundle();
		LettuceClientConfiguration clientConfiguration = new LettuceClientConfigurationMapper(properties, sslBundle,
				SslBundleReloads.follow(properties, sslBundles.getIfAvailable(), sslBundle),
				environment.getProperty("spring.application.name"))
			.map(configuration instanceof ClusterConfiguration, clientResources, optionsCustomizers,
					configurationCustomizers);
		ConnectionSharing sharing = ConnectionSharing.builder()
			.mode(tuning.getConnection().getMode())
			.connections(SharedConnectionCount.of(tuning))
			.selectionPolicy(tuning.getConnection().getMulti().getSelection())
			.build();
		LettuceTuningConnectionFactory factory = LettuceTuningConnectionFactory.of(configuration, clientConfiguration,
				sharing);
		configureDedicatedConnections(factory, tuning, properties, ExplicitProperties.of(environment),
				ClassUtils.isPresent("org.apache.commons.pool2.ObjectPool", resourceLoader.getClassLoader()));
		factory.setEagerInitialization(tuning.getConnection().isEagerInitialization());
		factory.setStrictBlockingCallGuard(tuning.getResilience().getBlockingCallGuard().isStrict());
		servingLoops.ifAvailable(factory::setServingLoops);
		if (followsRoleChanges(configuration, properties)) {
			factory.setRoleChangeGuard(roleChangeGuard.getIfAvailable());
		}
		if (tuning.getResilience().getMaintenanceNotifications().isStopAfterRefusal()) {
			outageGuard.ifAvailable((guard) -> factory.setMaintenanceNotifications(guard.maintenanceNotifications()));
		}
		if (Threading.VIRTUAL.isActive(environment)) {
			factory.setExecutor(virtualThreadExecutor());
		}
		return factory;
	}

	// Only multi mode has another shared connection to give a synchronous call made on an
	// event loop; elsewhere nothing asks which loop serves a connection.
	@Bean
	@ConditionalOnProperty(name = "lettuce.tuning.connection.mode", havingValue = "multi")
	@ConditionalOnBooleanProperty(name = "lettuce.tuning.resilience.blocking-call-guard.enabled", matchIfMissing = true)
	ServingLoops lettuceTuningServingLoops() {
		return new ServingLoops();
	}

	@Bean
	@ConditionalOnBean(ServingLoops.class)
	NettyCustomizerContribution lettuceTuningServingLoopsContribution(ServingLoops servingLoops) {
		return (tracing) -> servingLoops;
	}

	// A demoted primary is followed only on connections that write to the one server the
	// endpoint (or Sentinel) names: a cluster follows MOVED itself, and with read-from or
	// static master/replica Lettuce routes by role, reading from replicas on purpose.
	@Bean
	NettyCustomizerContribution lettuceTuningRoleChangeContribution(ObjectProvider<RoleChangeGuard> roleChangeGuard,
			DataRedisProperties properties, ObjectProvider<DataRedisConnectionDetails> connectionDetails,
			ObjectProvider<RedisStandaloneConfiguration> standalone,
			ObjectProvider<RedisSentinelConfiguration> sentinel, ObjectProvider<RedisClusterConfiguration> cluster,
			ObjectProvider<RedisStaticMasterReplicaConfiguration> masterReplica) {
		return (tracing) -> {
			RoleChangeGuard guard = roleChangeGuard.getIfAvailable();
			DataRedisConnectionDetails details = connectionDetails.getIfAvailable();
			if (guard == null || details == null) {
				return null;
			}
			RedisConfiguration configuration = new RedisTopology(details, maxRedirects(properties)).resolve(standalone,
					sentinel, cluster, masterReplica);
			return followsRoleChanges(configuration, properties) ? guard : null;
		};
	}

	static boolean followsRoleChanges(RedisConfiguration configuration, DataRedisProperties properties) {
		return (configuration instanceof RedisStandaloneConfiguration
				|| configuration instanceof RedisSentinelConfiguration)
				&& properties.getLettuce().getReadFrom() == null;
	}

	private static @Nullable Integer maxRedirects(DataRedisProperties properties) {
		DataRedisProperties.Cluster cluster = properties.getCluster();
		return (cluster != null) ? cluster.getMaxRedirects() : null;
	}

	private void configureDedicatedConnections(LettuceTuningConnectionFactory factory, LettuceTuningProperties tuning,
			DataRedisProperties properties, ExplicitProperties explicit, boolean commonsPool2Present) {
		DataRedisProperties.Pool pool = properties.getLettuce().getPool();
		boolean poolEnabled = (pool.getEnabled() != null) ? pool.getEnabled() : commonsPool2Present;
		if (tuning.getConnection().getMode() == ConnectionMode.POOLED && !commonsPool2Present) {
			throw new InvalidTuningPropertyException("lettuce.tuning.connection.mode", "pooled",
					"the pooled mode needs commons-pool2, which is not on the classpath",
					"Add the dependency org.apache.commons:commons-pool2, or set lettuce.tuning.connection.mode "
							+ "to 'shared' (the recommended default) or 'multi'.");
		}
		if (tuning.getConnection().getMode() == ConnectionMode.POOLED && !poolEnabled) {
			throw new InvalidTuningPropertyException("lettuce.tuning.connection.mode", "pooled",
					"the pooled mode needs the connection pool, which spring.data.redis.lettuce.pool.enabled=false "
							+ "switches off",
					"Remove spring.data.redis.lettuce.pool.enabled=false, or set lettuce.tuning.connection.mode "
							+ "to 'shared' (the recommended default) or 'multi'.");
		}
		if (poolEnabled) {
			if (!commonsPool2Present) {
				throw new InvalidTuningPropertyException("spring.data.redis.lettuce.pool.enabled", true,
						"the pool needs commons-pool2, which is not on the classpath",
						"Add the dependency org.apache.commons:commons-pool2, or remove "
								+ "spring.data.redis.lettuce.pool.enabled=true.");
			}
			ConnectionMode mode = tuning.getConnection().getMode();
			factory.setDedicatedConnections(DedicatedPoolFactory.create(pool,
					PoolMaxWait.of(properties, mode, explicit), mode != ConnectionMode.POOLED));
			factory.setPrewarmDedicatedConnections(tuning.getConnection().getPool().isPrewarm());
		}
	}

	private static SimpleAsyncTaskExecutor virtualThreadExecutor() {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("redis-");
		executor.setVirtualThreads(true);
		return executor;
	}

}
