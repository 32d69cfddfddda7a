package io.github.lettucetuning.connection;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The factory reports its configuration as {@link LettuceConnectionFactory} does when
 * built through the constructor of the configuration's type. Nothing connects.
 */
class LettuceTuningConnectionFactoryTests {

	private static final LettuceClientConfiguration CLIENT = LettuceClientConfiguration.defaultConfiguration();

	@Test
	void standaloneConfigurationIsTheOneTheFactoryTalksTo() {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration("redis.example", 6390);
		configuration.setDatabase(3);
		configuration.setPassword(RedisPassword.of("secret"));
		LettuceTuningConnectionFactory factory = create(configuration);
		assertThat(factory.getStandaloneConfiguration()).isSameAs(configuration);
		assertThat(factory.getHostName()).isEqualTo("redis.example");
		assertThat(factory.getPort()).isEqualTo(6390);
		assertThat(factory.getDatabase()).isEqualTo(3);
		assertThat(factory.getPassword()).isEqualTo("secret");
		assertSameAsStock(factory, new LettuceConnectionFactory(configuration, CLIENT));
	}

	@Test
	@SuppressWarnings("deprecation")
	void deprecatedSettersActOnTheStandaloneConfigurationInUse() {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration("redis.example", 6390);
		LettuceTuningConnectionFactory factory = create(configuration);
		factory.setHostName("other.example");
		factory.setPort(6391);
		factory.setPassword("changed");
		assertThat(configuration.getHostName()).isEqualTo("other.example");
		assertThat(configuration.getPort()).isEqualTo(6391);
		assertThat(configuration.getPassword()).isEqualTo(RedisPassword.of("changed"));
		assertThat(factory.getHostName()).isEqualTo("other.example");
	}

	@Test
	void sentinelConfigurationIsReportedAsStockReportsIt() {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration("mymaster",
				Set.of("sentinel.example:26379"));
		configuration.setDatabase(2);
		LettuceTuningConnectionFactory factory = create(configuration);
		assertThat(factory.getSentinelConfiguration()).isSameAs(configuration);
		assertThat(factory.isRedisSentinelAware()).isTrue();
		assertThat(factory.getDatabase()).isEqualTo(2);
		assertSameAsStock(factory, new LettuceConnectionFactory(configuration, CLIENT));
	}

	@Test
	void clusterConfigurationIsReportedAsStockReportsIt() {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration(List.of("node.example:7000"));
		configuration.setPassword(RedisPassword.of("secret"));
		LettuceTuningConnectionFactory factory = create(configuration);
		assertThat(factory.getClusterConfiguration()).isSameAs(configuration);
		assertThat(factory.isClusterAware()).isTrue();
		assertThat(factory.getPassword()).isEqualTo("secret");
		assertSameAsStock(factory, new LettuceConnectionFactory(configuration, CLIENT));
	}

	@Test
	void staticMasterReplicaConfigurationIsReportedAsStockReportsIt() {
		RedisStaticMasterReplicaConfiguration configuration = new RedisStaticMasterReplicaConfiguration(
				"primary.example", 6379);
		configuration.addNode("replica.example", 6380);
		configuration.setDatabase(5);
		configuration.setPassword(RedisPassword.of("secret"));
		LettuceTuningConnectionFactory factory = create(configuration);
		assertThat(factory.getDatabase()).isEqualTo(5);
		assertThat(factory.getPassword()).isEqualTo("secret");
		assertSameAsStock(factory, new LettuceConnectionFactory(configuration, CLIENT));
	}

	@Test
	void unsupportedConfigurationIsRejected() {
		RedisConfiguration unknown = new RedisConfiguration() {
		};
		assertThatIllegalArgumentException().isThrownBy(() -> create(unknown))
			.withMessageContaining("Unsupported Redis configuration");
	}

	@Test
	void onlyTheMultiModeSharesSeveralConnections() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ConnectionSharing.builder().mode(ConnectionMode.SHARED).connections(2).build())
			.withMessage("Mode SHARED cannot use 2 shared connections");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ConnectionSharing.builder().mode(ConnectionMode.MULTI).connections(0).build())
			.withMessage("Mode MULTI cannot use 0 shared connections");
		ConnectionSharing multi = ConnectionSharing.builder()
			.mode(ConnectionMode.MULTI)
			.connections(4)
			.selectionPolicy(SelectionPolicy.LEAST_IN_FLIGHT)
			.build();
		LettuceTuningConnectionFactory factory = LettuceTuningConnectionFactory
			.of(new RedisStandaloneConfiguration("redis.example", 6390), CLIENT, multi);
		assertThat(factory.getSharedConnectionCount()).isEqualTo(4);
		assertThat(factory.getSelectionPolicy()).isEqualTo(SelectionPolicy.LEAST_IN_FLIGHT);
		assertThat(factory.getShareNativeConnection()).isTrue();
		ConnectionSharing pooled = ConnectionSharing.builder().mode(ConnectionMode.POOLED).build();
		assertThat(LettuceTuningConnectionFactory.of(new RedisStandaloneConfiguration(), CLIENT, pooled)
			.getShareNativeConnection()).isFalse();
	}

	private static LettuceTuningConnectionFactory create(RedisConfiguration configuration) {
		return LettuceTuningConnectionFactory.of(configuration, CLIENT, ConnectionSharing.builder().build());
	}

	private static void assertSameAsStock(LettuceTuningConnectionFactory factory, LettuceConnectionFactory stock) {
		List<Function<LettuceConnectionFactory, Object>> readers = List.of(LettuceConnectionFactory::getHostName,
				LettuceConnectionFactory::getPort, LettuceConnectionFactory::getDatabase,
				LettuceConnectionFactory::getPassword, LettuceConnectionFactory::isClusterAware,
				LettuceConnectionFactory::isRedisSentinelAware, (f) -> f.getStandaloneConfiguration().getHostName(),
				(f) -> f.getStandaloneConfiguration().getPort(), (f) -> f.getStandaloneConfiguration().getDatabase(),
				(f) -> String.valueOf(f.getSentinelConfiguration()),
				(f) -> String.valueOf(f.getClusterConfiguration()));
		for (Function<LettuceConnectionFactory, Object> reader : readers) {
			assertThat(reader.apply(factory)).isEqualTo(reader.apply(stock));
		}
	}

}
