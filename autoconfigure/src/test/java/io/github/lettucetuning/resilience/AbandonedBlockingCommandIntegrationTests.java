package io.github.lettucetuning.resilience;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.lettuce.core.RedisCommandTimeoutException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A blocking command that outlives its caller: a {@code BLPOP} whose block time is longer
 * than the command timeout fails its caller at the command timeout, while the server
 * keeps the connection blocked. A transaction that then takes the same dedicated
 * connection waits behind it for nobody's reply. The stall check used to take the
 * abandoned {@code BLPOP} at the head of the queue as a reason for silence, so the
 * transaction was cut only by the command timeout. The fault campaign (standalone, seed
 * 1126, 163 s) found it: a pop abandoned during a blackhole held the next transaction 5.7
 * to 8 s. Now the connection is reopened after the stall timeout, without counting the
 * healthy server as down.
 */
@RedisStandaloneTest
@Timeout(60)
class AbandonedBlockingCommandIntegrationTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(6);

	private static final Duration STALL_TIMEOUT = Duration.ofSeconds(1);

	private final RedisStandalone redis;

	AbandonedBlockingCommandIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void prepare() {
		this.redis.node().command("FLUSHALL");
	}

	@Test
	void aTransactionGivenTheConnectionOfAnAbandonedPopFailsAtTheStallTimeoutAndTheNextOneRuns() {
		app().run((context) -> {
			OutageGuard guard = context.getBean(OutageGuard.class);
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			// The pop's dedicated connection goes back to the pool with the pop still
			// blocked on the server; the next transaction borrows it
			DataAccessException pop = catchThrowableOfType(DataAccessException.class,
					() -> template.opsForList().leftPop("empty", Duration.ofSeconds(60)));
			assertThat(NestedExceptionUtils.getRootCause(pop)).as("the pop, cut by the command timeout")
				.isInstanceOf(RedisCommandTimeoutException.class);

			long start = System.nanoTime();
			DataAccessException held = catchThrowableOfType(DataAccessException.class,
					() -> Transactions.setAll(template, "held"));
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			assertThat(NestedExceptionUtils.getRootCause(held)).as("the transaction behind the abandoned pop")
				.isInstanceOf(RedisStalledException.class)
				.hasMessageContaining("behind a BLPOP whose caller had already given up");
			assertThat(waited).as("its wait").isLessThan(COMMAND_TIMEOUT.minusSeconds(2));
			assertThat(guard.outages()).as("a blocked server is no outage").isEmpty();

			assertThat(Transactions.setAll(template, "after")).as("the next transaction").containsExactly(true);
			assertThat(String.valueOf(this.redis.node().command("GET", "after"))).isEqualTo("1");
			assertThat(String.valueOf(this.redis.node().command("EXISTS", "held"))).isEqualTo("0");
		});
	}

	private ApplicationContextRunner app() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(),
					"spring.data.redis.timeout=" + COMMAND_TIMEOUT.toSeconds() + "s",
					"lettuce.tuning.resilience.stall-detection.timeout=" + STALL_TIMEOUT.toSeconds() + "s");
	}

}
