package io.github.lettucetuning.resilience;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link MaintenanceNotifications}.
 */
class MaintenanceNotificationsTests {

	private static final RedisCommandExecutionException REFUSAL = new RedisCommandExecutionException(
			"ERR unknown subcommand 'MAINT_NOTIFICATIONS'. Try CLIENT HELP.");

	private final ClientResources resources = DefaultClientResources.create();

	private final MaintenanceNotifications notifications = new MaintenanceNotifications();

	@AfterEach
	void shutdown() {
		this.resources.shutdown(0, 0, TimeUnit.MILLISECONDS);
	}

	@Test
	void windowIsCarriedForLettucesRelaxedTimeout() {
		assertThat(this.notifications.windowCarry()).isEqualTo(TimeoutOptions.DEFAULT_RELAXED_TIMEOUT);
		RedisClient client = RedisClient.create(this.resources);
		client.setOptions(ClientOptions.builder()
			.timeoutOptions(TimeoutOptions.builder().relaxedTimeoutsDuringMaintenance(Duration.ofSeconds(3)).build())
			.build());
		this.notifications.register(client);
		assertThat(this.notifications.windowCarry()).isEqualTo(Duration.ofSeconds(3));
		this.notifications.refused("127.0.0.1:6379", REFUSAL);
		assertThat(this.notifications.windowCarry()).as("kept when the request stops").isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void windowEndsWithItsChannelWhenLettuceRelaxesNothing() {
		RedisClient client = RedisClient.create(this.resources);
		client.setOptions(ClientOptions.builder()
			.timeoutOptions(
					TimeoutOptions.builder().relaxedTimeoutsDuringMaintenance(TimeoutOptions.DISABLED_TIMEOUT).build())
			.build());
		this.notifications.register(client);
		assertThat(this.notifications.windowCarry()).isZero();
	}

	@Test
	void clientKeepsAskingWhileNoServerRefused() {
		RedisClient client = RedisClient.create(this.resources);
		this.notifications.register(client);
		assertThat(client.getOptions().getMaintNotificationsConfig().maintNotificationsEnabled()).isTrue();
		assertThat(this.notifications.refusal()).isNull();
	}

	@Test
	void refusalStopsRegisteredClientAndKeepsItsOtherOptions() {
		Predicate<RedisCommand<?, ?, ?>> replayFilter = (command) -> true;
		RedisClient client = RedisClient.create(this.resources);
		client.setOptions(ClientOptions.builder()
			.requestQueueSize(42)
			.useHashIndexQueue(!ClientOptions.DEFAULT_USE_HASH_INDEX_QUEUE)
			.replayFilter(replayFilter)
			.build());
		this.notifications.register(client);
		this.notifications.refused("redis:6379", REFUSAL);
		this.notifications.refused("redis:6379", REFUSAL);
		ClientOptions options = client.getOptions();
		assertThat(options.getMaintNotificationsConfig().maintNotificationsEnabled()).isFalse();
		assertThat(options.getRequestQueueSize()).isEqualTo(42);
		assertThat(options.isUseHashIndexedQueue()).isEqualTo(!ClientOptions.DEFAULT_USE_HASH_INDEX_QUEUE);
		assertThat(options.getReplayFilter()).isSameAs(replayFilter);
		assertThat(this.notifications.refusals()).isEqualTo(2);
		assertThat(this.notifications.refusal())
			.isEqualTo("redis:6379 (ERR unknown subcommand 'MAINT_NOTIFICATIONS'. Try CLIENT HELP.)");
	}

	@Test
	void clientRegisteredAfterARefusalStopsAtOnce() {
		this.notifications.refused("redis:6379", REFUSAL);
		RedisClient client = RedisClient.create(this.resources);
		this.notifications.register(client);
		assertThat(client.getOptions().getMaintNotificationsConfig().maintNotificationsEnabled()).isFalse();
	}

	@Test
	void refusalStopsClusterClientAndKeepsItsClusterOptions() {
		Predicate<RedisClusterNode> nodeFilter = (node) -> true;
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(Duration.ofSeconds(7))
			.build();
		RedisClusterClient client = RedisClusterClient.create(this.resources, "redis://localhost:7000");
		ClusterClientOptions.Builder builder = ClusterClientOptions.builder()
			.topologyRefreshOptions(refresh)
			.nodeFilter(nodeFilter)
			.maxRedirects(9);
		builder.useHashIndexQueue(!ClientOptions.DEFAULT_USE_HASH_INDEX_QUEUE);
		client.setOptions(builder.build());
		this.notifications.register(client);
		this.notifications.refused("redis:7000", REFUSAL);
		ClusterClientOptions options = (ClusterClientOptions) client.getOptions();
		assertThat(options.getMaintNotificationsConfig().maintNotificationsEnabled()).isFalse();
		assertThat(options.getTopologyRefreshOptions().getRefreshPeriod()).isEqualTo(Duration.ofSeconds(7));
		assertThat(options.getNodeFilter()).isSameAs(nodeFilter);
		assertThat(options.getMaxRedirects()).isEqualTo(9);
		assertThat(options.isUseHashIndexedQueue()).isEqualTo(!ClientOptions.DEFAULT_USE_HASH_INDEX_QUEUE);
	}

	@Test
	void requestIsTheMaintNotificationsSubcommandOnly() {
		assertThat(MaintenanceNotifications.isRequest(client("MAINT_NOTIFICATIONS", "on"))).isTrue();
		assertThat(MaintenanceNotifications.isRequest(client("SETINFO", "lib-name"))).isFalse();
		assertThat(MaintenanceNotifications
			.isRequest(new Command<>(CommandType.PING, new StatusOutput<>(StringCodec.UTF8)))).isFalse();
	}

	private static Command<String, String, String> client(String... args) {
		CommandArgs<String, String> commandArgs = new CommandArgs<>(StringCodec.UTF8);
		for (String arg : args) {
			commandArgs.add(arg);
		}
		return new Command<>(CommandType.CLIENT, new StatusOutput<>(StringCodec.UTF8), commandArgs);
	}

}
