package io.github.lettucetuning.resilience;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.fault.MaintenanceProxy;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A write that reached Redis and whose reply the broken connection lost, against a real
 * {@code redis-server} behind a proxy that holds its replies and then drops every
 * connection for longer than the grace: the caller is told the connection was lost and
 * the command may have run, not that it failed fast (which says it never left the
 * client), and it is not sent again after the reconnect. A command issued after the grace
 * fails fast, as before.
 */
@RedisStandaloneTest
@Timeout(60)
class UnansweredCommandsIntegrationTests {

	private final RedisStandalone redis;

	private MaintenanceProxy proxy;

	UnansweredCommandsIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@BeforeEach
	void startProxy() {
		this.redis.node().command("FLUSHALL");
		this.proxy = MaintenanceProxy.start(this.redis.port());
	}

	@AfterEach
	void closeProxy() {
		this.proxy.close();
	}

	@Test
	void writeSentBeforeTheConnectionBrokeFailsAsLostAndIsNotSentAgain() {
		ObservabilityIntegrationSupport.contextRunner("unanswered")
			.withPropertyValues("spring.data.redis.port=" + this.proxy.port(), "spring.data.redis.timeout=10s")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				assertThat(template.opsForValue().increment("unanswered")).isEqualTo(1);
				this.proxy.holdReplies(Duration.ofSeconds(5));
				CompletableFuture<Long> inFlight = CompletableFuture
					.supplyAsync(() -> template.opsForValue().increment("unanswered"));
				await(Duration.ofSeconds(5), "the INCR to reach Redis",
						() -> "2".equals(this.redis.node().commandAsString("GET", "unanswered")));
				this.proxy.dropConnections(Duration.ofMillis(2500));
				assertThatException().isThrownBy(inFlight::join)
					.satisfies((ex) -> assertThat(ex).hasRootCauseInstanceOf(RedisConnectionLostException.class)
						.rootCause()
						.hasMessageContaining("may have run the command, so it is not sent again"));
				assertThatException().isThrownBy(() -> template.opsForValue().get("unanswered"))
					.satisfies((ex) -> assertThat(ex).hasRootCauseInstanceOf(RedisUnreachableException.class));
				await(Duration.ofSeconds(10), "the connection to be back", () -> reads(template));
				assertThat(template.opsForValue().get("unanswered")).as("the lost INCR ran once, not again")
					.isEqualTo("2");
			});
	}

	private static boolean reads(StringRedisTemplate template) {
		try {
			template.opsForValue().get("unanswered");
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

}
