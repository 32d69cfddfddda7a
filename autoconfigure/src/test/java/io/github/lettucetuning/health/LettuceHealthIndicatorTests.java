package io.github.lettucetuning.health;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import io.github.lettucetuning.connection.ConnectionMode;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;

/**
 * Tests for {@link LettuceHealthIndicator}.
 *
 * @author lettuce-tuning
 */
@Timeout(30)
class LettuceHealthIndicatorTests {

	private final LettuceTuningConnectionFactory factory = mock();

	private final CountDownLatch release = new CountDownLatch(1);

	private LettuceHealthIndicator indicator;

	@AfterEach
	void close() {
		this.release.countDown();
		if (this.indicator != null) {
			this.indicator.destroy();
		}
	}

	@Test
	void downWithinTheTimeoutWhenRedisHangs() {
		given(this.factory.getMode()).willReturn(ConnectionMode.SHARED);
		given(this.factory.getConnection()).willAnswer((invocation) -> {
			this.release.await();
			throw new IllegalStateException("released");
		});
		this.indicator = new LettuceHealthIndicator(this.factory, Duration.ofMillis(200));
		long start = System.nanoTime();
		Health health = this.indicator.health();
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("mode", "shared")
			.containsEntry("error", "Redis did not answer within 200ms");
	}

	@Test
	void callsDuringAHungCheckJoinItInsteadOfStartingMore() {
		given(this.factory.getMode()).willReturn(ConnectionMode.SHARED);
		given(this.factory.getConnection()).willAnswer((invocation) -> {
			this.release.await();
			throw new IllegalStateException("released");
		});
		this.indicator = new LettuceHealthIndicator(this.factory, Duration.ofMillis(50));
		for (int i = 0; i < 5; i++) {
			assertThat(this.indicator.health().getStatus()).isEqualTo(Status.DOWN);
		}
		then(this.factory).should(times(1)).getConnection();
	}

	@Test
	void failedCheckIsDownWithTheCause() {
		given(this.factory.getMode()).willReturn(ConnectionMode.POOLED);
		given(this.factory.getConnection()).willThrow(new IllegalStateException("Unable to connect"));
		this.indicator = new LettuceHealthIndicator(this.factory, Duration.ofSeconds(1));
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.DOWN);
		assertThat(health.getDetails()).containsEntry("mode", "pooled");
		assertThat((String) health.getDetails().get("error")).contains("Unable to connect");
	}

	@Test
	void userWhoMayNotRunInfoIsCheckedWithPingFromThenOn() {
		given(this.factory.getMode()).willReturn(ConnectionMode.SHARED);
		RedisConnection connection = mock();
		RedisAsyncCommands<String, String> commands = mock();
		given(this.factory.getConnection()).willReturn(connection);
		given(connection.getNativeConnection()).willReturn(commands);
		given(commands.info(anyString())).willAnswer((invocation) -> failed(CommandType.INFO,
				"NOPERM User app has no permissions to run the 'info' command"));
		given(commands.ping()).willAnswer((invocation) -> completed(CommandType.PING, "PONG"));
		this.indicator = new LettuceHealthIndicator(this.factory, Duration.ofSeconds(1));
		for (int i = 0; i < 3; i++) {
			Health health = this.indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("check", "ping").doesNotContainKey("version");
		}
		then(commands).should(times(1)).info("server");
		then(commands).should(times(3)).ping();
	}

	@Test
	void versionComesFromInfoServer() {
		given(this.factory.getMode()).willReturn(ConnectionMode.MULTI);
		RedisConnection connection = mock();
		RedisAsyncCommands<String, String> commands = mock();
		given(this.factory.getConnection()).willReturn(connection);
		given(connection.getNativeConnection()).willReturn(commands);
		String info = "# Server\r\nredis_version:7.0.15\r\nredis_mode:standalone\r\n";
		given(commands.info("server")).willAnswer((invocation) -> completed(CommandType.INFO, info));
		this.indicator = new LettuceHealthIndicator(this.factory, Duration.ofSeconds(1));
		Health health = this.indicator.health();
		assertThat(health.getStatus()).isEqualTo(Status.UP);
		assertThat(health.getDetails()).containsEntry("version", "7.0.15").containsEntry("check", "info");
	}

	@Test
	void rejectsANonPositiveTimeout() {
		assertThatIllegalArgumentException().isThrownBy(() -> new LettuceHealthIndicator(this.factory, Duration.ZERO));
	}

	private static AsyncCommand<String, String, String> completed(CommandType type, String value) {
		AsyncCommand<String, String, String> command = new AsyncCommand<>(
				new Command<>(type, new StatusOutput<>(StringCodec.UTF8)));
		command.getOutput().set(ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8)));
		command.complete();
		return command;
	}

	private static AsyncCommand<String, String, String> failed(CommandType type, String error) {
		AsyncCommand<String, String, String> command = new AsyncCommand<>(
				new Command<>(type, new StatusOutput<>(StringCodec.UTF8)));
		command.completeExceptionally(new RedisCommandExecutionException(error));
		return command;
	}

}
