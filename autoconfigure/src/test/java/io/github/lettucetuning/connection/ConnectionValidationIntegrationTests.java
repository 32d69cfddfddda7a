package io.github.lettucetuning.connection;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.api.StatefulConnection;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Closed shared connections are replaced, and {@code setValidateConnection(true)} works
 * in every mode as in Spring Data Redis: a connection that does not answer a {@code PING}
 * is replaced before an operation uses it. Connections killed on a real server with
 * auto-reconnect off stay broken unless validation replaces them.
 */
@RedisStandaloneTest
@Timeout(120)
class ConnectionValidationIntegrationTests {

	private static final AtomicInteger apps = new AtomicInteger();

	private final RedisStandalone redis;

	private String clientName;

	ConnectionValidationIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.clientName = "validation-it-" + apps.incrementAndGet();
	}

	private ApplicationContextRunner contextRunner(String mode) {
		ApplicationContextRunner runner = TopologiesIntegrationSupport.contextRunner(this.clientName)
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(), "lettuce.tuning.connection.mode=" + mode,
					"spring.data.redis.timeout=2s");
		return mode.equals("multi") ? runner.withPropertyValues("lettuce.tuning.connection.multi.size=3") : runner;
	}

	@Test
	void closedMembersAreReplaced() {
		contextRunner("multi").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			assertThat(Load.run(3, 10, (i) -> template.opsForValue().set("warm" + i, "v"))).isZero();
			List<StatefulConnection<?, ?>> before = factory.getSharedConnections();
			assertThat(before).hasSize(3);
			before.get(0).close();
			before.get(2).close();
			for (int i = 0; i < 30; i++) {
				template.opsForValue().set("after" + i, "v");
			}
			List<StatefulConnection<?, ?>> after = factory.getSharedConnections();
			assertThat(after).hasSize(3).allSatisfy((connection) -> assertThat(connection.isOpen()).isTrue());
			assertThat(after.get(0)).isNotSameAs(before.get(0));
			assertThat(after.get(1)).isSameAs(before.get(1));
			assertThat(after.get(2)).isNotSameAs(before.get(2));
			awaitClients(3);
		});
	}

	@Test
	void withoutValidationABrokenConnectionKeepsFailing() {
		contextRunner("shared").withUserConfiguration(NoAutoReconnect.class).run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("warm", "v");
			killOurClients();
			assertThat(Load.run(1, 5, (i) -> template.opsForValue().get("k"))).isEqualTo(5);
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "shared", "multi", "pooled" })
	void validationReplacesConnectionsThatDoNotAnswer(String mode) {
		contextRunner(mode).withUserConfiguration(NoAutoReconnect.class).run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
			factory.setValidateConnection(true);
			assertThat(Load.run(3, 10, (i) -> template.opsForValue().set("warm" + i, "v"))).isZero();
			assertThat(killOurClients()).isPositive();
			long failures = Load.run(1, 30, (i) -> template.opsForValue().set("after" + i, "v"));
			assertThat(failures).as("operations failed after the kill in %s mode", mode).isZero();
			assertThat(this.redis.node().countClients(this.clientName)).isPositive();
		});
	}

	// The server drops a closed connection from its client list shortly after the client
	// closes it.
	private void awaitClients(long expected) {
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(this.redis.node().countClients(this.clientName)).isEqualTo(expected));
	}

	private int killOurClients() throws InterruptedException {
		List<ClientInfo> ours = this.redis.node()
			.clientList()
			.stream()
			.filter((client) -> client.name().equals(this.clientName))
			.toList();
		for (ClientInfo client : ours) {
			Faults.killClients(this.redis.node(), String.valueOf(client.id()));
		}
		// Let the client see the connections go before the next command is sent.
		Thread.sleep(200);
		return ours.size();
	}

	@Configuration(proxyBeanMethods = false)
	static class NoAutoReconnect {

		@Bean
		LettuceClientOptionsBuilderCustomizer noAutoReconnect() {
			return (builder) -> builder.autoReconnect(false);
		}

	}

}
