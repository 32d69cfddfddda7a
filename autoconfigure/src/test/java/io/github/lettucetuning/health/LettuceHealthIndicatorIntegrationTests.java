package io.github.lettucetuning.health;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.health.LettuceTuningHealthContributorAutoConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.state.ServerIdentity;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.RedisExecutables;
import io.github.lettucetuning.testsupport.server.ServerVersion;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * The bounded {@code redis} health check against a real server: up with Boot's
 * {@code version} detail, down within its timeout when the server is frozen or stopped,
 * and {@code PING} for a user whose ACL denies {@code INFO}.
 */
@RedisStandaloneTest
@Timeout(60)
class LettuceHealthIndicatorIntegrationTests {

	private final RedisStandalone redis;

	private ApplicationContextRunner contextRunner;

	LettuceHealthIndicatorIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.contextRunner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class,
					DataRedisAutoConfiguration.class, LettuceTuningHealthContributorAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "lettuce.tuning.health.timeout=500ms",
					"lettuce.tuning.resilience.stall-detection.enabled=false");
	}

	@AfterEach
	void restore() {
		Faults.recover(this.redis.node());
	}

	@Test
	void upWithTheServersNameAndOwnVersion() {
		// What the executable says it is, not what INFO says: Valkey's redis_version is
		// a frozen 7.2.4.
		ServerVersion server = ServerVersion.of(RedisExecutables.redisServer());
		this.contextRunner.run((context) -> {
			LettuceHealthIndicator indicator = context.getBean(LettuceHealthIndicator.class);
			assertThat(indicator.serverIdentity()).isNull();
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("version", server.version())
				.containsEntry("server", server.name())
				.containsEntry("check", "info")
				.containsEntry("role", "primary")
				.containsEntry("mode", "shared");
			assertThat(indicator.serverIdentity())
				.isEqualTo(new ServerIdentity(server.name(), server.version(), "standalone", "primary"));
		});
	}

	@Test
	void downWithinTheTimeoutWhenTheServerIsFrozenAndUpWhenItWakes() {
		this.contextRunner.run((context) -> {
			LettuceHealthIndicator indicator = context.getBean(LettuceHealthIndicator.class);
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			Faults.pause(this.redis.node());
			for (int i = 0; i < 3; i++) {
				long start = System.nanoTime();
				Health health = indicator.health();
				assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(900));
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails()).containsKey("error");
			}
			Faults.resume(this.redis.node());
			awaitStatus(indicator, Status.UP);
		});
	}

	@Test
	void downWhenTheServerIsStoppedAndUpWhenItReturns() {
		this.contextRunner.run((context) -> {
			LettuceHealthIndicator indicator = context.getBean(LettuceHealthIndicator.class);
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			Faults.kill(this.redis.node());
			long start = System.nanoTime();
			assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN);
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(900));
			this.redis.node().restart();
			awaitStatus(indicator, Status.UP);
		});
	}

	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aChangeOfStateIsLoggedOnceInOneLineNotEveryFailedCheckWithAStackTrace(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			LettuceHealthIndicator indicator = context.getBean(LettuceHealthIndicator.class);
			assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
			Faults.kill(this.redis.node());
			awaitStatus(indicator, Status.DOWN);
			for (int i = 0; i < 5; i++) {
				Health health = indicator.health();
				assertThat(health.getStatus()).isEqualTo(Status.DOWN);
				assertThat(health.getDetails()).containsKey("error");
			}
			this.redis.node().restart();
			awaitStatus(indicator, Status.UP);
			assertThat(output.getAll().split("Redis health is DOWN: ", -1)).hasSize(2);
			assertThat(output.getAll().split("Redis health is UP again after ", -1)).hasSize(2);
			assertThat(output).doesNotContain("Redis health check failed");
		});
	}

	@Test
	void aUserWhoMayNotRunInfoIsCheckedWithPing() {
		this.redis.node().command("ACL", "SETUSER", "limited", "on", ">limited-pw", "~*", "+@all", "-info");
		try {
			this.contextRunner
				.withPropertyValues("spring.data.redis.username=limited", "spring.data.redis.password=limited-pw")
				.run((context) -> {
					LettuceHealthIndicator indicator = context.getBean(LettuceHealthIndicator.class);
					for (int i = 0; i < 2; i++) {
						Health health = indicator.health();
						assertThat(health.getStatus()).isEqualTo(Status.UP);
						assertThat(health.getDetails()).containsEntry("check", "ping")
							.doesNotContainKey("version")
							.doesNotContainKey("server");
						assertThat(indicator.serverIdentity()).isNull();
					}
				});
		}
		finally {
			this.redis.node().command("ACL", "DELUSER", "limited");
		}
	}

	@Test
	void rejectsANonPositiveTimeout() {
		this.contextRunner.run((context) -> assertThatIllegalArgumentException()
			.isThrownBy(() -> new LettuceHealthIndicator(context.getBean(LettuceTuningConnectionFactory.class),
					Duration.ZERO)));
	}

	private static void awaitStatus(LettuceHealthIndicator indicator, Status status) {
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(50))
			.untilAsserted(() -> assertThat(indicator.health().getStatus()).as("health within 5 s").isEqualTo(status));
	}

}
