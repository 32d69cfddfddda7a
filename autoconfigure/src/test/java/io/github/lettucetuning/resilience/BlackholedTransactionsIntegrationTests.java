package io.github.lettucetuning.resilience;

import java.time.Duration;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.fault.NetworkBlackhole;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Transactions while the server drops every packet, before any dedicated connection is
 * open: each borrow opens one, and its SYNs go unanswered. The 30-minute fault campaign
 * (seed 1126) found transactions held 5.3 to 8 s around blackholes while every other
 * caller failed within 2 s. Lettuce's 10 s connect timeout outlasts the command timeout
 * (8 s here): with {@code spring.data.redis.connect-timeout=10s} this test sees 8 s waits
 * and fails. Unless the application sets that property, the starter's 2 s applies.
 */
@RedisStandaloneTest
class BlackholedTransactionsIntegrationTests {

	private static final Duration BLACKHOLE = Duration.ofSeconds(9);

	// The stall timeout or the connect timeout (2 s each), a borrow, and a margin for a
	// loaded 2-core machine; the campaign's bound for a caller is 5 s
	private static final Duration BOUND = Duration.ofMillis(4500);

	private final RedisStandalone redis;

	BlackholedTransactionsIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void transactionsFailWithinTheBoundWhileNewConnectionsGoUnanswered() {
		NetworkBlackhole.assumeAvailable();
		app().run((context) -> {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			// Only the shared connection is open: the first transaction opens a dedicated
			// one, under the blackhole
			template.opsForValue().set("before", "1");
			long longest = 0;
			int failed = 0;
			NetworkBlackhole blackhole = Faults.blackhole(this.redis.node());
			try {
				long end = System.nanoTime() + BLACKHOLE.toNanos();
				while (System.nanoTime() - end < 0) {
					long start = System.nanoTime();
					try {
						Transactions.setAll(template, "during:0", "during:1");
					}
					catch (DataAccessException ex) {
						failed++;
					}
					longest = Math.max(longest, System.nanoTime() - start);
				}
			}
			finally {
				blackhole.heal();
			}
			assertThat(failed).as("transactions failed during the blackhole").isGreaterThanOrEqualTo(2);
			assertThat(Duration.ofNanos(longest)).as("longest transaction during the blackhole").isLessThan(BOUND);
			assertThat(recovered(template)).as("a transaction succeeded after the heal").isTrue();
		});
	}

	// The kernel retries a SYN 1, 2 and 4 s after it was dropped: the first connect after
	// the heal can take a few seconds
	private static boolean recovered(StringRedisTemplate template) {
		long end = System.nanoTime() + Duration.ofSeconds(15).toNanos();
		while (System.nanoTime() - end < 0) {
			try {
				return Transactions.setAll(template, "after:0", "after:1").size() == 2;
			}
			catch (DataAccessException ex) {
				// Still reconnecting
			}
		}
		return false;
	}

	private ApplicationContextRunner app() {
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port(), "spring.data.redis.timeout=8s");
	}

}
