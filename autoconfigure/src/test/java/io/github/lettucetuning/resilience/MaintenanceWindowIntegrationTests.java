package io.github.lettucetuning.resilience;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.MaintenanceProxy;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.TimeoutOptions;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A server that announces maintenance, played by a {@link MaintenanceProxy} in front of a
 * real {@code redis-server}: it accepts Lettuce's request for the notifications, pushes
 * {@code MIGRATING}, then holds its replies for 3 s, longer than the 2 s stall timeout
 * and shorter than the 6 s command timeout. Without the announcement the stall check
 * closes the connection and fails the command; with it, the command completes, the health
 * check that times out meanwhile stays {@code UP}, and the window shows in the health
 * details, the meters and {@code /actuator/lettuce}.
 */
@RedisStandaloneTest
@Timeout(120)
class MaintenanceWindowIntegrationTests {

	private static final Duration HOLD = Duration.ofSeconds(3);

	private static final Duration DROP = Duration.ofMillis(2500);

	private final RedisStandalone redis;

	private MaintenanceProxy proxy;

	MaintenanceWindowIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void startProxy() {
		this.proxy = MaintenanceProxy.start(this.redis.port());
	}

	@AfterEach
	void closeProxy() {
		this.proxy.close();
	}

	@Test
	void silenceWithoutAnnouncementIsAStall() {
		starter().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("maint-window", "before");
			this.proxy.holdReplies(HOLD);
			assertThatException().isThrownBy(() -> template.opsForValue().get("maint-window"))
				.satisfies((ex) -> assertThat(messages(ex)).contains("read nothing for 2.0 s"));
			OutageGuard guard = context.getBean(OutageGuard.class);
			await(Duration.ofSeconds(10), "the connection the stall check closed to be back",
					() -> guard.outages().isEmpty() && reads(template, "before"));
			assertThat(guard.maintenanceNotifications().relaxedCommands()).isZero();
			assertThat(guard.connectionsMoved()).as("a reconnect to the same server is no move").isZero();
		});
	}

	@Test
	void announcedMigrationIsNoStall() {
		starter().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("maint-window", "during");
			OutageGuard guard = context.getBean(OutageGuard.class);
			MaintenanceNotifications notifications = guard.maintenanceNotifications();
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(this.proxy.requestsAccepted()).isPositive();
			assertThat(notifications.refusal()).isNull();
			int connections = this.proxy.connections();
			this.proxy.migrating(Duration.ofSeconds(15));
			await(Duration.ofSeconds(5), () -> "connections in a window: " + notifications.connectionsInWindow(),
					() -> notifications.connectionsInWindow() == connections);
			ClientState.Maintenance shown = context.getBean(LettuceEndpoint.class)
				.lettuce()
				.state()
				.outages()
				.maintenance();
			assertThat(shown.connectionsInWindow()).isEqualTo(connections);
			assertThat(shown.notifications()).isEqualTo(connections);
			this.proxy.holdReplies(HOLD);
			long start = System.nanoTime();
			Health health = context.getBean(LettuceHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("connectionsInMaintenanceWindow", connections);
			assertThat(String.valueOf(health.getDetails().get("check"))).contains("maintenance window");
			long relaxedBefore = notifications.relaxedCommands();
			assertThat(template.opsForValue().get("maint-window")).isEqualTo("during");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(2500));
			assertThat(notifications.relaxedCommands()).isGreaterThan(relaxedBefore);
			assertThat(registry.get("lettuce.tuning.maintenance.relaxed.commands").functionCounter().count())
				.isEqualTo(notifications.relaxedCommands());
			assertThat(guard.outages()).isEmpty();
			assertThat(registry.get("lettuce.tuning.maintenance.connections").gauge().value()).isEqualTo(connections);
			assertThat(registry.get("lettuce.tuning.maintenance.notifications").functionCounter().count())
				.isEqualTo(connections);
			this.proxy.migrated();
			await(Duration.ofSeconds(5), () -> "connections in a window: " + notifications.connectionsInWindow(),
					() -> notifications.connectionsInWindow() == 0);
			assertThat(notifications.received()).isEqualTo(2L * connections);
			this.proxy.holdReplies(HOLD);
			assertThatException().isThrownBy(() -> template.opsForValue().get("maint-window"))
				.satisfies((ex) -> assertThat(messages(ex)).contains("read nothing for 2.0 s"));
		});
	}

	@Test
	void announcedFailoverIsNoStall() {
		starter().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("maint-window", "failover");
			OutageGuard guard = context.getBean(OutageGuard.class);
			MaintenanceNotifications notifications = guard.maintenanceNotifications();
			int connections = this.proxy.connections();
			this.proxy.failingOver(Duration.ofSeconds(15));
			await(Duration.ofSeconds(5), () -> "connections in a window: " + notifications.connectionsInWindow(),
					() -> notifications.connectionsInWindow() == connections);
			this.proxy.holdReplies(HOLD);
			long start = System.nanoTime();
			assertThat(context.getBean(LettuceHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
			assertThat(template.opsForValue().get("maint-window")).isEqualTo("failover");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofMillis(2500));
			assertThat(guard.outages()).isEmpty();
			this.proxy.failedOver();
			await(Duration.ofSeconds(5), () -> "connections in a window: " + notifications.connectionsInWindow(),
					() -> notifications.connectionsInWindow() == 0);
			assertThat(notifications.received()).isEqualTo(2L * connections);
		});
	}

	@Test
	void announcedMoveIsFollowedWithoutAnOutage() {
		starter().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("maint-window", "moving");
			OutageGuard guard = context.getBean(OutageGuard.class);
			int connections = this.proxy.connections();
			assertThat(connections).isPositive();
			assertThat(guard.connectionsMoved()).isZero();
			// The endpoint moves to the server itself: a connection that followed it no
			// longer goes through the proxy.
			this.proxy.moving(Duration.ofSeconds(2), this.redis.port());
			await(Duration.ofSeconds(5), () -> "connections left on the old endpoint: " + this.proxy.connections(),
					() -> this.proxy.connections() == 0);
			for (int i = 0; i < 100; i++) {
				template.opsForValue().set("maint-window-" + i, "moved");
				assertThat(template.opsForValue().get("maint-window-" + i)).isEqualTo("moved");
			}
			assertThat(this.proxy.connections()).isZero();
			assertThat(guard.connectionsMoved()).isEqualTo(connections);
			assertThat(context.getBean(MeterRegistry.class)
				.get("lettuce.tuning.connections.moved")
				.functionCounter()
				.count()).isEqualTo(connections);
			assertThat(context.getBean(LettuceEndpoint.class).lettuce().state().outages().connectionsMoved())
				.isEqualTo(connections);
			assertThat(guard.outages()).isEmpty();
			assertThat(context.getBean(LettuceHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
		});
	}

	@Test
	void reconnectWithoutAnnouncementFailsAfterTheGrace() throws InterruptedException {
		starter().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("maint-window", "before");
			this.proxy.dropConnections(DROP);
			Thread.sleep(200);
			assertThatException().isThrownBy(() -> template.opsForValue().get("maint-window"))
				.satisfies((ex) -> assertThat(messages(ex)).contains("unreachable"));
		});
	}

	@Test
	void announcedMigrationCarriesOverAReconnect() {
		starter().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.opsForValue().set("maint-window", "moved");
			OutageGuard guard = context.getBean(OutageGuard.class);
			MaintenanceNotifications notifications = guard.maintenanceNotifications();
			int connections = this.proxy.connections();
			this.proxy.migrating(Duration.ofSeconds(15));
			await(Duration.ofSeconds(5), () -> "connections in a window: " + notifications.connectionsInWindow(),
					() -> notifications.connectionsInWindow() == connections);
			this.proxy.dropConnections(DROP);
			Thread.sleep(200);
			long start = System.nanoTime();
			assertThat(template.opsForValue().get("maint-window")).isEqualTo("moved");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThan(Duration.ofSeconds(1));
			assertThat(guard.outages()).isEmpty();
			assertThat(notifications.connectionsInWindow()).isZero();
		});
	}

	@Test
	void carriedWindowLastsAsLongAsLettucesRelaxedTimeout() {
		starter().withBean(LettuceClientOptionsBuilderCustomizer.class,
				() -> (options) -> options.timeoutOptions(TimeoutOptions.builder()
					.timeoutCommands()
					.connectionTimeout()
					.relaxedTimeoutsDuringMaintenance(Duration.ofMillis(500))
					.build()))
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("maint-window", "moved");
				MaintenanceNotifications notifications = context.getBean(OutageGuard.class).maintenanceNotifications();
				assertThat(notifications.windowCarry()).isEqualTo(Duration.ofMillis(500));
				int connections = this.proxy.connections();
				this.proxy.migrating(Duration.ofSeconds(15));
				await(Duration.ofSeconds(5), () -> "connections in a window: " + notifications.connectionsInWindow(),
						() -> notifications.connectionsInWindow() == connections);
				// Connections refused for 2.5 s: longer than the 500 ms window carried.
				this.proxy.dropConnections(DROP);
				Thread.sleep(1000);
				assertThatException().isThrownBy(() -> template.opsForValue().get("maint-window"))
					.satisfies((ex) -> assertThat(messages(ex)).contains("unreachable"));
			});
	}

	private ApplicationContextRunner starter() {
		return ObservabilityIntegrationSupport.contextRunner("maint-window")
			.withPropertyValues("spring.data.redis.port=" + this.proxy.port(), "spring.data.redis.timeout=6s");
	}

	private static boolean reads(StringRedisTemplate template, String expected) {
		try {
			return expected.equals(template.opsForValue().get("maint-window"));
		}
		catch (DataAccessException ex) {
			return false;
		}
	}

	private static String messages(Throwable failure) {
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			messages.append(cause.getMessage()).append(" <- ");
		}
		return messages.toString();
	}

}
