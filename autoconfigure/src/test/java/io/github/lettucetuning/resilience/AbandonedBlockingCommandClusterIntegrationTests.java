package io.github.lettucetuning.resilience;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.testsupport.RedisClusterTest;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.lettuce.core.RedisCommandTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The cluster twin of {@link AbandonedBlockingCommandIntegrationTests}: on a cluster
 * connection, Lettuce wraps each command in a {@code ClusterCommand} that reports itself
 * done only when the node answers, not when its caller's command timed out. The stall
 * check took such an abandoned {@code BLPOP} for one whose caller still waits, so a
 * pipeline given the same dedicated connection waited behind it until the server answered
 * the pop. Now the connection is reopened after the stall timeout, as on a standalone
 * server.
 */
@RedisClusterTest
@Timeout(120)
class AbandonedBlockingCommandClusterIntegrationTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(4);

	private static final Duration STALL_TIMEOUT = Duration.ofSeconds(1);

	private final RedisClusterTopology cluster;

	AbandonedBlockingCommandClusterIntegrationTests(RedisClusterTopology cluster) {
		this.cluster = cluster;
	}

	@Test
	void aPipelineGivenTheConnectionOfAnAbandonedPopFailsAtTheStallTimeoutAndTheNextOneRuns() {
		app().run((context) -> {
			OutageGuard guard = context.getBean(OutageGuard.class);
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			template.delete(List.of("{abandoned}:list", "{abandoned}:held", "{abandoned}:after"));
			// The pop's dedicated connection goes back to the pool with the pop still
			// blocked on the server, for 60 s; the next pipeline borrows it, and its keys
			// go to the same node
			DataAccessException pop = catchThrowableOfType(DataAccessException.class,
					() -> template.opsForList().leftPop("{abandoned}:list", Duration.ofSeconds(60)));
			assertThat(NestedExceptionUtils.getRootCause(pop)).as("the pop, cut by the command timeout")
				.isInstanceOf(RedisCommandTimeoutException.class);

			long start = System.nanoTime();
			Throwable held = catchThrowable(() -> setInPipeline(template, "{abandoned}:held"));
			Duration waited = Duration.ofNanos(System.nanoTime() - start);
			// Before the fix it waited out the command timeout. Now the connection is
			// reopened one stall timeout after the pop's caller gave up: a pipeline
			// written before that fails, one written after goes out on the new one.
			assertThat(waited).as("the wait of the pipeline behind the abandoned pop")
				.isLessThan(COMMAND_TIMEOUT.minusSeconds(1));
			// Spring Data keeps only the message of a pipelined command's failure, which
			// the stall's is not: that the SET failed, and never ran, is what tells.
			if (held != null) {
				assertThat(held).isInstanceOf(RedisPipelineException.class);
				assertThat(template.hasKey("{abandoned}:held")).as("a failed SET, never run").isFalse();
			}
			else {
				assertThat(template.opsForValue().get("{abandoned}:held")).isEqualTo("1");
			}
			assertThat(guard.outages()).as("a blocked server is no outage").isEmpty();

			assertThat(setInPipeline(template, "{abandoned}:after")).as("the next pipeline").containsExactly(true);
			assertThat(template.opsForValue().get("{abandoned}:after")).isEqualTo("1");
		});
	}

	private static List<Object> setInPipeline(StringRedisTemplate template, String key) {
		return template.executePipelined((RedisCallback<Object>) (connection) -> {
			connection.stringCommands().set(key.getBytes(StandardCharsets.UTF_8), "1".getBytes(StandardCharsets.UTF_8));
			return null;
		});
	}

	private ApplicationContextRunner app() {
		String nodes = String.join(",", this.cluster.masters().stream().map((n) -> n.host() + ":" + n.port()).toList());
		return new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes,
					"spring.data.redis.timeout=" + COMMAND_TIMEOUT.toSeconds() + "s",
					"lettuce.tuning.resilience.stall-detection.timeout=" + STALL_TIMEOUT.toSeconds() + "s");
	}

}
