package io.github.lettucetuning.autoconfigure;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.management.ObjectName;

import io.github.lettucetuning.endpoint.LettuceDescriptor;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.state.ServerIdentity;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.RedisExecutables;
import io.github.lettucetuning.testsupport.server.ServerVersion;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.metrics.MicrometerCommandLatencyRecorder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.observation.LettuceObservationAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Metrics, health and the {@code lettuce} endpoint against a real standalone server,
 * under traffic and faults: dropped connections, a stalled server, a stopped server and
 * an ACL user who may not run {@code INFO}.
 */
@RedisStandaloneTest
@Timeout(120)
class ObservabilityIntegrationTests {

	private static final AtomicInteger apps = new AtomicInteger();

	private static final Duration HEALTH_TIMEOUT = Duration.ofMillis(500);

	private final RedisStandalone redis;

	private String clientName;

	private ApplicationContextRunner contextRunner;

	ObservabilityIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.redis.node().command("FLUSHALL");
		this.clientName = "observability-it-" + apps.incrementAndGet();
		this.contextRunner = ObservabilityIntegrationSupport.contextRunner(this.clientName)
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(),
					"lettuce.tuning.health.timeout=" + HEALTH_TIMEOUT.toMillis() + "ms");
	}

	@AfterEach
	void resume() {
		if (this.redis.node().isPaused()) {
			Faults.resume(this.redis.node());
		}
	}

	@Test
	void commandLatencyTimersCountEachCommandWithSpringBoot3sNamesAndTags() {
		this.contextRunner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			for (int i = 0; i < 100; i++) {
				template.opsForValue().set("key:" + i, "value");
			}
			for (int i = 0; i < 40; i++) {
				template.opsForValue().get("key:" + i);
			}
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			Timer sets = registry.get("lettuce.command.completion").tag("command", "SET").timer();
			assertThat(sets.count()).isEqualTo(100);
			assertThat(sets.getId().getTag("local")).isEqualTo("local:any");
			assertThat(sets.getId().getTag("remote")).endsWith(":" + this.redis.port());
			assertThat(registry.get("lettuce.command.firstresponse").tag("command", "SET").timer().count())
				.isEqualTo(100);
			assertThat(registry.get("lettuce.command.completion").tag("command", "GET").timer().count()).isEqualTo(40);
		});
	}

	@Test
	void springBootsObservationAloneTimesEachCommandOnce() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
					LettuceObservationAutoConfiguration.class))
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				setObserved(context.getBean(StringRedisTemplate.class), registry);
				assertThat(registry.find("lettuce.command.completion").meters()).isEmpty();
			});
	}

	@Test
	void observationAndCommandLatencyTimersCoexistWhenAskedFor() {
		this.contextRunner
			.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class,
					LettuceObservationAutoConfiguration.class))
			.withPropertyValues("lettuce.tuning.metrics.command-latency.enabled=true")
			.run((context) -> {
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				setObserved(context.getBean(StringRedisTemplate.class), registry);
				assertThat(registry.get("lettuce.command.completion").tag("command", "SET").timer().count())
					.isEqualTo(20);
			});
	}

	private static void setObserved(StringRedisTemplate template, MeterRegistry registry) throws InterruptedException {
		for (int i = 0; i < 20; i++) {
			template.opsForValue().set("observed:" + i, "value");
		}
		await(Duration.ofSeconds(5), "observation timer 'lettuce' for SET",
				() -> registry.find("lettuce")
					.tag("db.operation", "SET")
					.timers()
					.stream()
					.mapToLong(Timer::count)
					.sum() >= 20);
	}

	@Test
	void droppedConnectionCountsAReconnectAndReopens() {
		this.contextRunner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("before", "kill");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(openConnections(registry)).isOne();
			assertThat(Faults.killClients(this.redis.node(), this.clientName)).isOne();
			await(Duration.ofSeconds(10), "a reconnect attempt",
					() -> registry.get("lettuce.tuning.reconnects").functionCounter().count() >= 1);
			await(Duration.ofSeconds(10), "the shared connection open again", () -> openConnections(registry) == 1);
			template.opsForValue().set("after", "kill");
			LettuceDescriptor descriptor = context.getBean(LettuceEndpoint.class).lettuce();
			assertThat(descriptor.state().events().reconnectAttempts()).isGreaterThanOrEqualTo(1);
			assertThat(descriptor.state().connections().open()).isOne();
		});
	}

	@Test
	void commandStalledPastItsTimeoutIsCounted() {
		this.contextRunner.withPropertyValues("spring.data.redis.timeout=300ms").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("stall", "me");
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			CompletableFuture<Void> sleeping = Faults.debugSleep(this.redis.node(), Duration.ofMillis(1200));
			assertThatExceptionOfType(QueryTimeoutException.class)
				.isThrownBy(() -> template.opsForValue().get("stall"));
			sleeping.get(10, TimeUnit.SECONDS);
			assertThat(registry.get("lettuce.tuning.command.timeouts").functionCounter().count()).isOne();
			assertThat(context.getBean(LettuceEndpoint.class).lettuce().state().events().commandTimeouts()).isOne();
			assertThat(template.opsForValue().get("stall")).isEqualTo("me");
		});
	}

	@Test
	void healthIsUpWithDetailsAndDownWithinItsTimeoutWhenRedisStops() {
		// A command timeout far above the health timeout: DOWN must not wait for it.
		this.contextRunner.withPropertyValues("spring.data.redis.timeout=10s").run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.execute(new IncrementInTransaction());
			LettuceHealthIndicator indicator = context.getBean(LettuceHealthIndicator.class);
			Health up = indicator.health();
			assertThat(up.getStatus()).isEqualTo(Status.UP);
			assertThat(up.getDetails()).containsEntry("mode", "shared")
				.containsEntry("check", "info")
				.containsKey("version")
				.containsEntry("connections", Map.of("total", 1, "open", 1, "disconnected", 0, "unopened", 0));
			assertThat(up.getDetails().get("pool")).asInstanceOf(InstanceOfAssertFactories.MAP)
				.containsEntry("active", 0)
				.containsEntry("idle", 1)
				.containsEntry("waiting", 0)
				.containsEntry("max", 8);
			Faults.pause(this.redis.node());
			long start = System.nanoTime();
			Health down = indicator.health();
			Duration took = Duration.ofNanos(System.nanoTime() - start);
			assertThat(down.getStatus()).isEqualTo(Status.DOWN);
			assertThat(took).isLessThan(HEALTH_TIMEOUT.plusMillis(1500));
			assertThat(down.getDetails()).containsEntry("mode", "shared").containsKey("error");
			Faults.resume(this.redis.node());
			await(Duration.ofSeconds(10), "health UP again", () -> indicator.health().getStatus() == Status.UP);
		});
	}

	@Test
	void userWhoMayNotRunInfoIsCheckedWithPingAndNoSecretShows() {
		String password = "Limited-" + System.nanoTime();
		this.redis.node()
			.command("ACL", "SETUSER", "limited", "reset", "on", ">" + password, "~*", "&*", "+@all", "-info");
		try {
			this.contextRunner
				.withPropertyValues("spring.data.redis.username=limited", "spring.data.redis.password=" + password)
				.run((context) -> {
					context.getBean(StringRedisTemplate.class).opsForValue().set("acl", "ok");
					Health health = context.getBean(LettuceHealthIndicator.class).health();
					assertThat(health.getStatus()).isEqualTo(Status.UP);
					assertThat(health.getDetails()).containsEntry("check", "ping").doesNotContainKey("version");
					JsonMapper json = JsonMapper.builder().build();
					assertThat(json.writeValueAsString(health.getDetails())).doesNotContain(password);
					LettuceDescriptor descriptor = context.getBean(LettuceEndpoint.class).lettuce();
					assertThat(json.writeValueAsString(descriptor)).doesNotContain(password);
					// The user is shown, once, where the credentials are described.
					assertThat(descriptor.state().credentials().user()).isEqualTo("limited");
				});
		}
		finally {
			this.redis.node().command("ACL", "DELUSER", "limited");
		}
	}

	@Test
	void poolMetersFollowDedicatedWork() throws Exception {
		this.contextRunner.run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			for (int i = 0; i < 3; i++) {
				template.execute(new IncrementInTransaction());
			}
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("lettuce.tuning.pool.created").functionCounter().count()).isOne();
			assertThat(registry.get("lettuce.tuning.pool.borrowed").functionCounter().count()).isEqualTo(3);
			assertThat(registry.get("lettuce.tuning.pool.idle").gauge().value()).isOne();
			assertThat(registry.get("lettuce.tuning.pool.active").gauge().value()).isZero();
			assertThat(registry.get("lettuce.tuning.pool.max").gauge().value()).isEqualTo(8);
			assertThat(template.opsForValue().get("tx")).isEqualTo("3");
			// commons-pool2 registers the pool in JMX under a generic name, hence the
			// direct binding.
			assertThat(ManagementFactory.getPlatformMBeanServer()
				.queryNames(new ObjectName("org.apache.commons.pool2:type=GenericObjectPool,*"), null)).isNotEmpty();
		});
	}

	@Test
	void endpointDescribesTheRunningClient() {
		this.contextRunner.run((context) -> {
			context.getBean(StringRedisTemplate.class).opsForValue().set("endpoint", "on");
			LettuceEndpoint endpoint = context.getBean(LettuceEndpoint.class);
			// Reading the endpoint sends nothing: the server is known once health has
			// run.
			assertThat(endpoint.lettuce().server()).isNull();
			assertThat(context.getBean(LettuceHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
			LettuceDescriptor descriptor = endpoint.lettuce();
			ServerVersion server = ServerVersion.of(RedisExecutables.redisServer());
			assertThat(descriptor.server())
				.isEqualTo(new ServerIdentity(server.name(), server.version(), "standalone", "primary"));
			assertThat(descriptor.configuration().connections().mode()).isEqualTo("shared");
			assertThat(descriptor.configuration().commands().timeout()).isEqualTo(Duration.ofSeconds(2));
			assertThat(descriptor.configuration().health().bounded()).isTrue();
			assertThat(descriptor.configuration().health().timeout()).isEqualTo(HEALTH_TIMEOUT);
			assertThat(descriptor.state().connections().open()).isOne();
			assertThat(descriptor.state().timer().pending()).isNotNull();
			assertThat(descriptor.state().timer().expired()).isNotNull();
			assertThat(descriptor.state().topology()).isNull();
			assertThat(context.getBean(MicrometerCommandLatencyRecorder.class)).isNotNull();
		});
	}

	// Command timeouts are counted once the factory reports command exceptions.
	private static double openConnections(MeterRegistry registry) {
		return registry.get("lettuce.tuning.connections").tag("state", "open").gauge().value();
	}

	static final class IncrementInTransaction implements SessionCallback<List<Object>> {

		@Override
		@SuppressWarnings({ "unchecked", "rawtypes" })
		public List<Object> execute(RedisOperations operations) throws DataAccessException {
			operations.multi();
			operations.opsForValue().increment("tx");
			return operations.exec();
		}

	}

}
