package io.github.lettucetuning.autoconfigure.connection;

import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;

import io.github.lettucetuning.autoconfigure.ExplicitProperties;
import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.connection.ConnectionMode;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.models.role.RedisInstance.Role;
import io.lettuce.core.models.role.RedisNodeDescription;
import io.lettuce.core.resource.ClientResources;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientConfigurationBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration.ClusterConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettucePoolingClientConfiguration;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.util.StringUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holds lettuce-tuning's mapping of {@code spring.data.redis.*} to Spring Boot's own:
 * each case builds Boot's stock {@link LettuceConnectionFactory} and ours from the same
 * properties and compares them field by field, so that a Boot upgrade that changes how
 * Boot maps a property fails this build. One case per line: properties separated by
 * {@code ;}.
 * <p>
 * {@link #mappingMatchesSpringBoots} compares everything, at the mapping stage: our
 * mapping runs on the beans of a context holding Boot's auto-configuration alone, before
 * the starter's customizers add the tuned defaults that differ from Boot's on purpose
 * (keep-alive, TCP_USER_TIMEOUT, the connect timeout when unset, cluster refresh triggers
 * and period, the timer). The remaining documented differences are left out where they
 * show: the pool's wait when {@code max-wait} is unset (see {@link PoolMaxWait}); the
 * client name, which falls back to {@code spring.application.name} (not set here);
 * cluster options for a cluster defined other than by properties (all clusters here are).
 * {@link #starterMatchesSpringBoot} then checks the starter's real factory on what its
 * customizers leave alone.
 */
class BootMappingParityTests {

	// A throwaway self-signed key pair (keytool, PKCS12, password changeit).
	private static final String[] SSL_BUNDLE = {
			"spring.ssl.bundle.jks.parity.keystore.location=classpath:parity-keystore.p12",
			"spring.ssl.bundle.jks.parity.keystore.password=changeit",
			"spring.ssl.bundle.jks.parity.keystore.type=PKCS12",
			"spring.ssl.bundle.jks.parity.truststore.location=classpath:parity-keystore.p12",
			"spring.ssl.bundle.jks.parity.truststore.password=changeit",
			"spring.ssl.bundle.jks.parity.truststore.type=PKCS12",
			"spring.ssl.bundle.jks.parity.options.protocols=TLSv1.3",
			"spring.ssl.bundle.jks.parity.options.ciphers=TLS_AES_128_GCM_SHA256" };

	// A primary and two replicas in different subnets, to tell read-from settings apart.
	private static final List<RedisNodeDescription> NODES = List.of(node("10.0.0.1", 6379, Role.UPSTREAM),
			node("10.0.1.2", 6380, Role.REPLICA), node("192.168.0.3", 6381, Role.REPLICA));

	private final ApplicationContextRunner bootRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, SslAutoConfiguration.class))
		.withPropertyValues(SSL_BUNDLE);

	private final ApplicationContextRunner starterRunner = this.bootRunner
		.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class));

	@ParameterizedTest
	@ValueSource(strings = { "",
			"spring.data.redis.host=redis.example;spring.data.redis.port=6380;spring.data.redis.database=3",
			"spring.data.redis.username=app;spring.data.redis.password=secret", "spring.data.redis.password=secret",
			"spring.data.redis.url=redis://app:secret@redis.example:6390/2",
			"spring.data.redis.url=redis://:secret@redis.example:6390",
			"spring.data.redis.url=rediss://app:secret@redis.example:6390/2",
			"spring.data.redis.url=redis://redis.example:6390;spring.data.redis.host=ignored;spring.data.redis.database=5",
			"spring.data.redis.ssl.enabled=true", "spring.data.redis.ssl.bundle=parity",
			"spring.data.redis.ssl.enabled=false;spring.data.redis.ssl.bundle=parity",
			"spring.data.redis.url=rediss://redis.example:6390;spring.data.redis.ssl.bundle=parity",
			"spring.data.redis.timeout=750ms;spring.data.redis.connect-timeout=3s",
			"spring.data.redis.lettuce.shutdown-timeout=250ms", "spring.data.redis.lettuce.shutdown-timeout=0",
			"spring.data.redis.client-name=orders", "spring.data.redis.lettuce.read-from=upstream",
			"spring.data.redis.lettuce.read-from=any-replica", "spring.data.redis.lettuce.read-from=replicaPreferred",
			"spring.data.redis.lettuce.read-from=LOWEST_LATENCY",
			"spring.data.redis.lettuce.read-from=regex:10\\.0\\.1\\..*",
			"spring.data.redis.lettuce.read-from=subnet:192.168.0.0/16",
			"spring.data.redis.sentinel.master=mymaster;spring.data.redis.sentinel.nodes=s1:26379,s2:26380",
			"spring.data.redis.sentinel.master=mymaster;spring.data.redis.sentinel.nodes=s1:26379;spring.data.redis.sentinel.username=watch;spring.data.redis.sentinel.password=watchword;spring.data.redis.username=app;spring.data.redis.password=secret;spring.data.redis.database=4",
			"spring.data.redis.sentinel.master=mymaster;spring.data.redis.sentinel.nodes=s1:26379;spring.data.redis.url=redis://app:secret@redis.example:6390/2",
			"spring.data.redis.cluster.nodes=c1:7000,c2:7001,c3:7002",
			"spring.data.redis.cluster.nodes=c1:7000;spring.data.redis.cluster.max-redirects=7;spring.data.redis.username=app;spring.data.redis.password=secret",
			"spring.data.redis.cluster.nodes=c1:7000;spring.data.redis.lettuce.cluster.refresh.period=15s;spring.data.redis.lettuce.cluster.refresh.dynamic-refresh-sources=false",
			"spring.data.redis.cluster.nodes=c1:7000;spring.data.redis.lettuce.read-from=replica;spring.data.redis.ssl.bundle=parity",
			"spring.data.redis.masterreplica.nodes=m1:6379,r1:6380,r2:6381",
			"spring.data.redis.masterreplica.nodes=m1:6379,r1:6380;spring.data.redis.username=app;spring.data.redis.password=secret;spring.data.redis.database=2",
			"spring.data.redis.sentinel.master=mymaster;spring.data.redis.sentinel.nodes=s1:26379;spring.data.redis.cluster.nodes=c1:7000",
			"spring.data.redis.cluster.nodes=c1:7000;spring.data.redis.masterreplica.nodes=m1:6379",
			"spring.data.redis.lettuce.pool.max-active=16;spring.data.redis.lettuce.pool.max-idle=12;spring.data.redis.lettuce.pool.min-idle=2;spring.data.redis.lettuce.pool.time-between-eviction-runs=30s;spring.data.redis.lettuce.pool.max-wait=1500ms",
			"spring.data.redis.lettuce.pool.max-wait=-1ms", "spring.data.redis.lettuce.pool.enabled=false" })
	void mappingMatchesSpringBoots(String properties) {
		this.bootRunner.withPropertyValues(split(properties)).run((context) -> {
			LettuceConnectionFactory boot = context.getBean(LettuceConnectionFactory.class);
			RedisConfiguration configuration = ourConfiguration(context);
			assertThat(configuration).usingRecursiveComparison().isEqualTo(configuration(boot));
			LettuceClientConfiguration client = new LettuceClientConfigurationMapper(
					context.getBean(DataRedisProperties.class),
					context.getBean(DataRedisConnectionDetails.class).getSslBundle(), null)
				.map(configuration instanceof ClusterConfiguration, context.getBean(ClientResources.class),
						context.getBeanProvider(LettuceClientOptionsBuilderCustomizer.class),
						context.getBeanProvider(LettuceClientConfigurationBuilderCustomizer.class));
			assertSameClient(client, boot.getClientConfiguration());
			ClientOptions options = client.getClientOptions().get();
			ClientOptions bootOptions = boot.getClientConfiguration().getClientOptions().get();
			if (clusterPropertiesUnused(context, configuration)) {
				// Documented difference: Boot builds cluster options whenever
				// spring.data.redis.cluster.* is set, even when another topology wins;
				// ours follow the topology in use. The fields both have must agree.
				assertThat(options).isNotInstanceOf(ClusterClientOptions.class);
			}
			else {
				assertThat(options.getClass()).isEqualTo(bootOptions.getClass());
			}
			assertThat(options).usingRecursiveComparison().ignoringFields("sslOptions").isEqualTo(bootOptions);
			assertSamePool(context, boot.getClientConfiguration());
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "spring.data.redis.url=rediss://app:secret@redis.example:6390/2",
			"spring.data.redis.ssl.bundle=parity;spring.data.redis.client-name=orders",
			"spring.data.redis.timeout=750ms;spring.data.redis.connect-timeout=3s;spring.data.redis.lettuce.shutdown-timeout=250ms",
			"spring.data.redis.lettuce.read-from=regex:10\\.0\\.1\\..*",
			"spring.data.redis.sentinel.master=mymaster;spring.data.redis.sentinel.nodes=s1:26379;spring.data.redis.sentinel.password=watchword;spring.data.redis.password=secret;spring.data.redis.database=4",
			"spring.data.redis.cluster.nodes=c1:7000,c2:7001;spring.data.redis.cluster.max-redirects=7;spring.data.redis.lettuce.cluster.refresh.period=15s",
			"spring.data.redis.masterreplica.nodes=m1:6379,r1:6380;spring.data.redis.password=secret" })
	void starterMatchesSpringBoot(String properties) {
		String[] values = split(properties);
		this.bootRunner.withPropertyValues(values).run((bootContext) -> {
			LettuceConnectionFactory boot = bootContext.getBean(LettuceConnectionFactory.class);
			this.starterRunner.withPropertyValues(values).run((context) -> {
				LettuceConnectionFactory ours = context.getBean(LettuceConnectionFactory.class);
				assertThat(ours.getClass()).isNotEqualTo(LettuceConnectionFactory.class);
				assertThat(configuration(ours)).usingRecursiveComparison().isEqualTo(configuration(boot));
				LettuceClientConfiguration client = ours.getClientConfiguration();
				LettuceClientConfiguration expected = boot.getClientConfiguration();
				assertThat(client.getCommandTimeout()).isEqualTo(expected.getCommandTimeout());
				assertThat(client.getShutdownTimeout()).isEqualTo(expected.getShutdownTimeout());
				assertSameReadFrom(client.getReadFrom(), expected.getReadFrom());
				assertThat(client.isUseSsl()).isEqualTo(expected.isUseSsl());
				assertThat(client.getVerifyMode()).isEqualTo(expected.getVerifyMode());
				assertThat(client.isStartTls()).isEqualTo(expected.isStartTls());
				expected.getClientName().ifPresent((name) -> assertThat(client.getClientName()).contains(name));
				ClientOptions options = client.getClientOptions().get();
				ClientOptions expectedOptions = expected.getClientOptions().get();
				// The starter's socket customizer adds keep-alive; it keeps a connect
				// timeout that was set, and replaces Lettuce's 10 s when none was.
				Duration connectTimeout = (context.getBean(DataRedisProperties.class).getConnectTimeout() != null)
						? expectedOptions.getSocketOptions().getConnectTimeout() : Duration.ofSeconds(2);
				assertThat(options.getSocketOptions().getConnectTimeout()).isEqualTo(connectTimeout);
				assertSameSsl(options.getSslOptions(), expectedOptions.getSslOptions());
			});
		});
	}

	private static RedisConfiguration ourConfiguration(AssertableApplicationContext context) {
		DataRedisProperties.Cluster cluster = context.getBean(DataRedisProperties.class).getCluster();
		return new RedisTopology(context.getBean(DataRedisConnectionDetails.class),
				(cluster != null) ? cluster.getMaxRedirects() : null)
			.resolve(context.getBeanProvider(RedisStandaloneConfiguration.class),
					context.getBeanProvider(RedisSentinelConfiguration.class),
					context.getBeanProvider(RedisClusterConfiguration.class),
					context.getBeanProvider(RedisStaticMasterReplicaConfiguration.class));
	}

	private static boolean clusterPropertiesUnused(AssertableApplicationContext context,
			RedisConfiguration configuration) {
		return context.getBean(DataRedisProperties.class).getCluster() != null
				&& !(configuration instanceof ClusterConfiguration);
	}

	// The factory has getters for standalone, Sentinel and cluster but not for static
	// master/replica, so read the one field it keeps them all in.
	private static Object configuration(LettuceConnectionFactory factory) {
		Object configuration = ReflectionTestUtils.getField(factory, LettuceConnectionFactory.class, "configuration");
		assertThat(configuration).isNotNull();
		return configuration;
	}

	private static void assertSameClient(LettuceClientConfiguration ours, LettuceClientConfiguration boot) {
		assertThat(ours.getCommandTimeout()).isEqualTo(boot.getCommandTimeout());
		assertThat(ours.getShutdownTimeout()).isEqualTo(boot.getShutdownTimeout());
		assertThat(ours.getShutdownQuietPeriod()).isEqualTo(boot.getShutdownQuietPeriod());
		assertSameReadFrom(ours.getReadFrom(), boot.getReadFrom());
		assertThat(ours.getClientName()).isEqualTo(boot.getClientName());
		assertThat(ours.isUseSsl()).isEqualTo(boot.isUseSsl());
		assertThat(ours.getVerifyMode()).isEqualTo(boot.getVerifyMode());
		assertThat(ours.isStartTls()).isEqualTo(boot.isStartTls());
		assertThat(ours.getClientResources()).isEqualTo(boot.getClientResources());
		assertThat(ours.getRedisCredentialsProviderFactory()).isEqualTo(boot.getRedisCredentialsProviderFactory());
		assertSameSsl(ours.getClientOptions().get().getSslOptions(), boot.getClientOptions().get().getSslOptions());
	}

	// Lettuce's read-from settings have no equals: compare their type and what they pick.
	private static void assertSameReadFrom(Optional<ReadFrom> ours, Optional<ReadFrom> boot) {
		assertThat(ours.map(Object::getClass)).isEqualTo(boot.map(Object::getClass));
		assertThat(ours.map(BootMappingParityTests::selection)).isEqualTo(boot.map(BootMappingParityTests::selection));
	}

	private static List<String> selection(ReadFrom readFrom) {
		ReadFrom.Nodes nodes = new ReadFrom.Nodes() {

			@Override
			public List<RedisNodeDescription> getNodes() {
				return NODES;
			}

			@Override
			public Iterator<RedisNodeDescription> iterator() {
				return NODES.iterator();
			}

		};
		return readFrom.select(nodes).stream().map((node) -> node.getUri().toString()).toList();
	}

	// The key and trust managers come from the same bundle; what the bundle's options add
	// is what can differ.
	private static void assertSameSsl(SslOptions ours, SslOptions boot) {
		assertThat(ours == null).isEqualTo(boot == null);
		if (boot != null) {
			assertThat(ours.getProtocols()).isEqualTo(boot.getProtocols());
			assertThat(ours.getCipherSuites()).isEqualTo(boot.getCipherSuites());
			assertThat(ours.getHandshakeTimeout()).isEqualTo(boot.getHandshakeTimeout());
			assertThat(ours.getSslProvider()).isEqualTo(boot.getSslProvider());
		}
	}

	private static void assertSamePool(AssertableApplicationContext context, LettuceClientConfiguration boot) {
		if (!(boot instanceof LettucePoolingClientConfiguration pooling)) {
			assertThat(context.getBean(DataRedisProperties.class).getLettuce().getPool().getEnabled()).isFalse();
			return;
		}
		DataRedisProperties properties = context.getBean(DataRedisProperties.class);
		ExplicitProperties explicit = ExplicitProperties.of(context.getEnvironment());
		GenericObjectPoolConfig<StatefulConnection<?, ?>> ours = DedicatedPoolFactory
			.poolConfig(properties.getLettuce().getPool(), PoolMaxWait.of(properties, ConnectionMode.SHARED, explicit));
		GenericObjectPoolConfig<?> expected = pooling.getPoolConfig();
		assertThat(ours.getMaxTotal()).isEqualTo(expected.getMaxTotal());
		assertThat(ours.getMaxIdle()).isEqualTo(expected.getMaxIdle());
		assertThat(ours.getMinIdle()).isEqualTo(expected.getMinIdle());
		assertThat(ours.getDurationBetweenEvictionRuns()).isEqualTo(expected.getDurationBetweenEvictionRuns());
		// Documented difference: unset, the wait is lettuce-tuning's bounded default.
		if (explicit.isSet(PoolMaxWait.PROPERTY)) {
			assertThat(ours.getMaxWaitDuration()).isEqualTo(expected.getMaxWaitDuration());
		}
		else {
			assertThat(ours.getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(2));
		}
	}

	private static String[] split(String properties) {
		return Arrays.stream(properties.split(";")).filter(StringUtils::hasText).toArray(String[]::new);
	}

	private static RedisNodeDescription node(String host, int port, Role role) {
		RedisURI uri = RedisURI.create(host, port);
		return new RedisNodeDescription() {

			@Override
			public RedisURI getUri() {
				return uri;
			}

			@Override
			public Role getRole() {
				return role;
			}

		};
	}

}
