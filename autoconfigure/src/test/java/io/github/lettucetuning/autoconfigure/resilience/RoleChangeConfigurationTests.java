package io.github.lettucetuning.autoconfigure.resilience;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.resilience.RoleChangeGuard;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.lettuce.core.resource.ClientResources;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for where lettuce-tuning follows a primary demoted in place: on connections that
 * write to the one server an endpoint or Sentinel names, and nowhere else.
 */
class RoleChangeConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class));

	@Test
	void standaloneConnectionsFollowADemotedPrimary() {
		this.contextRunner.withPropertyValues("lettuce.tuning.resilience.role-change.min-interval=7s")
			.run((context) -> {
				RoleChangeGuard guard = context.getBean(RoleChangeGuard.class);
				assertThat(guard.minInterval()).isEqualTo(Duration.ofSeconds(7));
				assertThat(installed(context)).isTrue();
				assertThat(context.getBean(LettuceTuningConnectionFactory.class).getRoleChangeGuard()).isSameAs(guard);
			});
	}

	@Test
	void sentinelConnectionsFollowADemotedPrimary() {
		this.contextRunner
			.withPropertyValues("spring.data.redis.sentinel.master=mymaster",
					"spring.data.redis.sentinel.nodes=127.0.0.1:26379")
			.run((context) -> assertThat(installed(context)).isTrue());
	}

	@Test
	void clusterConnectionsFollowMovedInstead() {
		this.contextRunner.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:7000,127.0.0.1:7001")
			.run(this::notInstalled);
	}

	@Test
	void readFromLeavesRoutingByRoleToLettuce() {
		this.contextRunner.withPropertyValues("spring.data.redis.lettuce.read-from=replica-preferred")
			.run(this::notInstalled);
	}

	@Test
	void staticMasterReplicaLeavesRoutingByRoleToLettuce() {
		this.contextRunner.withPropertyValues("spring.data.redis.masterreplica.nodes=127.0.0.1:6379,127.0.0.1:6380")
			.run(this::notInstalled);
	}

	@Test
	void switchedOff() {
		this.contextRunner.withPropertyValues("lettuce.tuning.resilience.role-change.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(RoleChangeGuard.class);
			assertThat(context.getBean(LettuceTuningConnectionFactory.class).getRoleChangeGuard()).isNull();
		});
	}

	private void notInstalled(AssertableApplicationContext context) {
		assertThat(context).hasSingleBean(RoleChangeGuard.class);
		assertThat(installed(context)).isFalse();
		assertThat(context.getBean(LettuceTuningConnectionFactory.class).getRoleChangeGuard()).isNull();
	}

	private static boolean installed(AssertableApplicationContext context) {
		return CompositeNettyCustomizer.includes(context.getBean(ClientResources.class).nettyCustomizer(),
				context.getBean(RoleChangeGuard.class));
	}

}
