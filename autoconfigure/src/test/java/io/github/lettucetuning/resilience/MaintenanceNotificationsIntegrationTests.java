package io.github.lettucetuning.resilience;

import java.util.List;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.RedisInfo;
import io.github.lettucetuning.testsupport.server.RespClient;
import io.github.lettucetuning.testsupport.server.RespErrorException;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lettuce's request for maintenance notifications against a Redis 7.0 that does not know
 * it: stock Spring Boot gets it refused on every connection; the starter stops asking
 * after the first refusal. Each application opens its shared connection and then one
 * dedicated connection per transaction (the pool is off), and the server's error and
 * connection counters are read over one admin connection held across the run.
 */
@RedisStandaloneTest
@Timeout(120)
class MaintenanceNotificationsIntegrationTests {

	private static final int TRANSACTIONS = 6;

	// CLIENT SETINFO lib-name and lib-ver, which Lettuce sends on every connection
	// whatever the starter does: refused by a server older than Redis 7.2 (2 errors per
	// connection), answered by Redis 7.2+ and Valkey 8.
	private final int setinfoErrors;

	private final RedisStandalone redis;

	MaintenanceNotificationsIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
		this.setinfoErrors = knowsSetinfo(redis) ? 0 : 2;
	}

	private static boolean knowsSetinfo(RedisStandalone redis) {
		try (RespClient probe = redis.node().connect()) {
			probe.command("CLIENT", "SETINFO", "lib-name", "probe");
			return true;
		}
		catch (RespErrorException ex) {
			return false;
		}
	}

	@Test
	void stockBootIsRefusedOnEveryConnection() {
		Counts counts = measure(stock(), (context) -> {
		});
		assertThat(counts.connections()).isEqualTo(TRANSACTIONS + 1);
		assertThat(counts.errors()).isEqualTo((this.setinfoErrors + 1) * counts.connections());
	}

	@Test
	void starterStopsAskingAfterTheFirstRefusal() {
		Counts counts = measure(starter(), (context) -> {
			MaintenanceNotifications notifications = context.getBean(OutageGuard.class).maintenanceNotifications();
			assertThat(notifications.refusals()).isEqualTo(1);
			assertThat(notifications.refusal()).contains("127.0.0.1:" + this.redis.port())
				.containsIgnoringCase("unknown subcommand");
			assertThat(context.getBean(LettuceConnectionFactory.class)
				.getRequiredNativeClient()
				.getOptions()
				.getMaintNotificationsConfig()
				.maintNotificationsEnabled()).isFalse();
		});
		assertThat(counts.connections()).isEqualTo(TRANSACTIONS + 1);
		assertThat(counts.errors()).isEqualTo(this.setinfoErrors * counts.connections() + 1);
	}

	@Test
	void starterAsksOnEveryConnectionWhenToldTo() {
		Counts counts = measure(
				starter()
					.withPropertyValues("lettuce.tuning.resilience.maintenance-notifications.stop-after-refusal=false"),
				(context) -> assertThat(context.getBean(LettuceConnectionFactory.class)
					.getRequiredNativeClient()
					.getOptions()
					.getMaintNotificationsConfig()
					.maintNotificationsEnabled()).isTrue());
		assertThat(counts.errors()).isEqualTo((this.setinfoErrors + 1) * counts.connections());
	}

	private Counts measure(ApplicationContextRunner runner, Check check) {
		try (RespClient admin = this.redis.node().connect()) {
			admin.command("DEL", "maint-transactions");
			admin.command("CONFIG", "RESETSTAT");
			long connectionsBefore = connectionsReceived(admin);
			runner.withPropertyValues("spring.data.redis.port=" + this.redis.port()).run((context) -> {
				assertThat(context).hasNotFailed();
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("maint", "plain");
				assertThat(template.opsForValue().get("maint")).isEqualTo("plain");
				for (int i = 0; i < TRANSACTIONS; i++) {
					assertThat(template.execute(new IncrementInTransaction())).containsExactly(i + 1L);
				}
				check.accept(context);
			});
			return new Counts(connectionsReceived(admin) - connectionsBefore, errors(admin));
		}
	}

	private static long connectionsReceived(RespClient admin) {
		return Long.parseLong(
				RedisInfo.parse(String.valueOf(admin.command("INFO", "stats"))).get("total_connections_received"));
	}

	private static long errors(RespClient admin) {
		String count = RedisInfo.parse(String.valueOf(admin.command("INFO", "errorstats")))
			.getOrDefault("errorstat_ERR", "count=0");
		return Long.parseLong(count.replaceAll(".*count=(\\d+).*", "$1"));
	}

	private static ApplicationContextRunner stock() {
		return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.lettuce.pool.enabled=false");
	}

	private static ApplicationContextRunner starter() {
		return ObservabilityIntegrationSupport.contextRunner("maint-notifications")
			.withPropertyValues("spring.data.redis.lettuce.pool.enabled=false");
	}

	@FunctionalInterface
	private interface Check {

		void accept(AssertableApplicationContext context);

	}

	private record Counts(long connections, long errors) {

	}

	private static final class IncrementInTransaction implements SessionCallback<List<Object>> {

		@Override
		@SuppressWarnings({ "unchecked", "rawtypes" })
		public List<Object> execute(RedisOperations operations) throws DataAccessException {
			operations.multi();
			operations.opsForValue().increment("maint-transactions");
			return operations.exec();
		}

	}

}
