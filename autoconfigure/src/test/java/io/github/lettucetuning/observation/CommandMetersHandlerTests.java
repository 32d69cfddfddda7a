package io.github.lettucetuning.observation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The handler's bookkeeping on a channel of its own: what it records, when, and with
 * which {@code error} tag. Recording against real Redis, next to Boot's observation, is
 * {@link CommandMetersParityIntegrationTests}' job.
 */
class CommandMetersHandlerTests {

	private final MeterRegistry registry = new SimpleMeterRegistry();

	private final EmbeddedChannel channel = new EmbeddedChannel();

	CommandMetersHandlerTests() {
		new CommandMeters(this.registry, Map.of("region", "test")).afterChannelInitialized(this.channel);
	}

	@AfterEach
	void close() {
		this.channel.finishAndReleaseAll();
	}

	@Test
	void commandsDoneInOrderAreRecordedWhenTheirReadBatchEnds() {
		List<AsyncCommand<String, String, String>> commands = write(200);
		commands.forEach(AsyncCommand::complete);
		assertThat(count("SET", "none")).isZero();
		this.channel.pipeline().fireChannelReadComplete();
		assertThat(count("SET", "none")).isEqualTo(200);
		assertThat(timer("SET", "none").getId().getTag("region")).isEqualTo("test");
	}

	@Test
	void aCommandNotDoneHoldsBackTheOnesBehindItUntilItIs() {
		List<AsyncCommand<String, String, String>> commands = write(3);
		commands.get(1).complete();
		commands.get(2).complete();
		this.channel.pipeline().fireChannelReadComplete();
		assertThat(count("SET", "none")).isZero();
		commands.get(0).complete();
		this.channel.pipeline().fireChannelReadComplete();
		assertThat(count("SET", "none")).isEqualTo(3);
	}

	@Test
	void aCancelledCommandIsTaggedAsBootsObservationTagsIt() {
		List<AsyncCommand<String, String, String>> commands = write(2);
		commands.get(0).cancel(true);
		commands.get(1).completeExceptionally(new RedisCommandTimeoutException("timed out"));
		this.channel.pipeline().fireChannelReadComplete();
		assertThat(count("SET", "CancellationException")).isEqualTo(1);
		// Lettuce writes the timeout into the command's output, so Boot's span tags none
		assertThat(count("SET", "none")).isEqualTo(1);
	}

	@Test
	void aCommandStillWaitingAfterTheCheckIsRecordedWhenItCompletes() {
		List<AsyncCommand<String, String, String>> commands = write(1);
		// The check hands the command a callback once it has waited SLOW_MILLIS
		await().pollDelay(Duration.ofMillis(CommandMetersHandler.SLOW_MILLIS))
			.atMost(Duration.ofSeconds(2))
			.until(() -> this.channel.runScheduledPendingTasks() == -1);
		commands.get(0).cancel(true);
		// No read batch ended: the callback recorded it
		assertThat(count("SET", "CancellationException")).isEqualTo(1);
		assertThat(timer("SET", "CancellationException").totalTime(TimeUnit.MILLISECONDS))
			.isGreaterThanOrEqualTo(CommandMetersHandler.SLOW_MILLIS);
	}

	@Test
	void commandsLeftWhenTheChannelClosesAreRecordedWhenTheyComplete() {
		List<AsyncCommand<String, String, String>> commands = write(2);
		commands.get(0).complete();
		this.channel.close();
		assertThat(count("SET", "none")).isEqualTo(1);
		commands.get(1).cancel(true);
		assertThat(count("SET", "CancellationException")).isEqualTo(1);
	}

	private List<AsyncCommand<String, String, String>> write(int count) {
		List<AsyncCommand<String, String, String>> commands = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			AsyncCommand<String, String, String> command = new AsyncCommand<>(
					new Command<>(CommandType.SET, new StatusOutput<>(StringCodec.UTF8)));
			this.channel.writeOutbound(command);
			commands.add(command);
		}
		this.channel.outboundMessages().clear();
		return commands;
	}

	private long count(String operation, String error) {
		Timer timer = this.registry.find(EndpointTimers.TIMER_NAME)
			.tag("db.operation", operation)
			.tag("error", error)
			.timer();
		return (timer != null) ? timer.count() : 0;
	}

	private Timer timer(String operation, String error) {
		return this.registry.get(EndpointTimers.TIMER_NAME).tag("db.operation", operation).tag("error", error).timer();
	}

}
