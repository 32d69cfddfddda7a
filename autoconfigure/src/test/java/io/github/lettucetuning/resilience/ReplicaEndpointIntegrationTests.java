package io.github.lettucetuning.resilience;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.testsupport.server.Await;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.server.RedisServerLauncher;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * An application pointed at a replica by mistake: its writes fail with {@code READONLY}.
 * The starter reconnects once to re-resolve the endpoint, finds the same replica, and
 * then says so once, clearly, instead of reconnecting in a loop; reads keep working, and
 * the health details name the role.
 */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class ReplicaEndpointIntegrationTests {

	private static final String STILL_A_REPLICA = "is still a replica after reconnecting";

	private final RedisServerLauncher launcher = new RedisServerLauncher();

	private RedisNode primary;

	private RedisNode replica;

	@BeforeEach
	void startServers() {
		this.primary = this.launcher.start(RedisServerConfig.defaults().withName("replica-endpoint-primary"));
		this.replica = this.launcher.start(RedisServerConfig.defaults().withName("replica-endpoint-replica"));
		this.primary.command("SET", "greeting", "hello");
		this.replica.command("REPLICAOF", this.primary.host(), Integer.toString(this.primary.port()));
		Await.until(Duration.ofSeconds(30), this.replica + " in sync", () -> {
			Map<String, String> replication = this.replica.info("replication");
			return "up".equals(replication.get("master_link_status")) ? null : replication.toString();
		});
	}

	@AfterEach
	void stopServers() {
		this.replica.close();
		this.primary.close();
	}

	@Test
	void writesToAReplicaFailWithOneClearMessageAndNoReconnectLoop(CapturedOutput output) {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.replica.host(),
					"spring.data.redis.port=" + this.replica.port(), "spring.application.name=replica-endpoint",
					"lettuce.tuning.resilience.role-change.min-interval=500ms")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				RoleChangeGuard guard = context.getBean(RoleChangeGuard.class);
				long writes = 0;
				long readOnly = 0;
				long deadline = System.nanoTime() + Duration.ofSeconds(4).toNanos();
				while (System.nanoTime() - deadline < 0) {
					writes++;
					try {
						template.opsForValue().set("key", "value");
					}
					catch (RuntimeException ex) {
						readOnly += isReadOnly(ex) ? 1 : 0;
					}
					assertThat(template.opsForValue().get("greeting")).isEqualTo("hello");
					Thread.sleep(5);
				}
				System.out.println("replica-endpoint: " + writes + " writes, " + readOnly + " failed READONLY, "
						+ guard.reconnects() + " reconnects; last change " + guard.lastChange());
				assertThat(readOnly).as("every write fails READONLY").isEqualTo(writes);
				// 500ms, then doubling (1s, 2s, 4s) plus jitter: at most 4 in 4s, not one
				// per write
				assertThat(guard.reconnects()).isBetween(2L, 4L);
				assertThat(guard.lastChange()).isNotNull();
				assertThat(guard.lastChange().action()).contains("still a replica");
				assertThat(output.toString().split(STILL_A_REPLICA, -1)).as("one clear message").hasSize(2);
				assertThat(output).contains("spring.data.redis.host");
				assertThat(this.replica.countClients("replica-endpoint")).isOne();
				LettuceHealthIndicator indicator = new LettuceHealthIndicator(
						context.getBean(LettuceTuningConnectionFactory.class));
				try {
					Health health = indicator.health();
					assertThat(health.getDetails()).containsEntry("role", "replica").containsKey("roleChange");
				}
				finally {
					indicator.destroy();
				}
			});
	}

	// A blocking read written with the SET, in one write, waits on the replica when the
	// READONLY arrives: it fails with the role change, naming the server.
	@Test
	void aCommandWaitingBehindTheRefusedWriteFailsSayingTheServerBecameAReplica() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.replica.host(),
					"spring.data.redis.port=" + this.replica.port(), "spring.application.name=waiting-behind")
			.run((context) -> {
				LettuceTuningConnectionFactory factory = context.getBean(LettuceTuningConnectionFactory.class);
				try (RedisConnection connection = factory.getConnection()) {
					@SuppressWarnings("unchecked")
					StatefulConnection<byte[], byte[]> stateful = ((RedisAsyncCommands<byte[], byte[]>) connection
						.getNativeConnection()).getStatefulConnection();
					ByteArrayCodec codec = ByteArrayCodec.INSTANCE;
					AsyncCommand<byte[], byte[], String> set = new AsyncCommand<>(
							new Command<>(CommandType.SET, new StatusOutput<>(codec),
									new CommandArgs<>(codec).addKey(bytes("key")).addValue(bytes("v"))));
					AsyncCommand<byte[], byte[], List<Object>> read = new AsyncCommand<>(
							new Command<>(CommandType.XREAD, new ArrayOutput<>(codec),
									new CommandArgs<>(codec).add("BLOCK")
										.add(2000)
										.add("STREAMS")
										.addKey(bytes("stream"))
										.add("$")));
					stateful.dispatch(List.of(set, read));
					assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> set.get(5, TimeUnit.SECONDS))
						.havingCause()
						.isExactlyInstanceOf(RedisReadOnlyException.class);
					assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> read.get(5, TimeUnit.SECONDS))
						.havingCause()
						.isInstanceOf(RedisReadOnlyException.class)
						.isInstanceOfSatisfying(RedisRoleChangedException.class, (ex) -> {
							System.out.println("waiting-behind: " + ex.getMessage());
							assertThat(ex.getServer()).isEqualTo(this.replica.host() + ":" + this.replica.port());
							assertThat(ex.getMessage()).contains("has become a replica")
								.contains("reconnecting to the current address of " + this.replica.host())
								.contains("not retried");
						});
				}
				assertThat(context.getBean(RoleChangeGuard.class).lastChange().failedCommands()).isOne();
			});
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	// A primary demoted in place while the application's address does not change: the
	// shared connection finds out at its first write, and the dedicated connections idle
	// in the pool, which would find out only when borrowed, are closed with it.
	@Test
	void idleConnectionsToADemotedPrimaryAreClosedWithTheOneThatFoundOut() {
		new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LettuceTuningAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.primary.host(),
					"spring.data.redis.port=" + this.primary.port(), "spring.application.name=demoted-idle",
					"spring.data.redis.lettuce.pool.min-idle=2", "lettuce.tuning.connection.pool.prewarm=true")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("key", "value");
				List<Long> before = clientIds(this.primary, "demoted-idle");
				assertThat(before).as("the shared connection and two idle dedicated ones").hasSize(3);
				this.replica.command("REPLICAOF", "NO", "ONE");
				this.primary.command("REPLICAOF", this.replica.host(), Integer.toString(this.replica.port()));
				assertThatExceptionOfType(RuntimeException.class)
					.isThrownBy(() -> template.opsForValue().set("key", "refused"))
					.satisfies((ex) -> assertThat(isReadOnly(ex)).isTrue());
				Await.until(Duration.ofSeconds(5),
						"every connection of the application to the demoted primary to be replaced", () -> {
							List<Long> now = clientIds(this.primary, "demoted-idle");
							return (now.size() == 3 && now.stream().noneMatch(before::contains)) ? null
									: "before " + before + ", now " + now;
						});
				RoleChangeGuard guard = context.getBean(RoleChangeGuard.class);
				System.out.println("demoted-idle: " + guard.reconnects() + " connections closed; last change "
						+ guard.lastChange());
				assertThat(guard.reconnects()).isEqualTo(3);
			});
	}

	private static List<Long> clientIds(RedisNode server, String name) {
		return server.clientList().stream().filter((client) -> client.name().equals(name)).map(ClientInfo::id).toList();
	}

	private static boolean isReadOnly(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof RedisReadOnlyException) {
				return true;
			}
		}
		return false;
	}

}
