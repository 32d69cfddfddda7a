package io.github.lettucetuning.observation;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.protocol.CommandWrapper;
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
	void aCommandWhoseReplyPassedWithoutCompletingItHoldsBackNoOne() {
		// A cluster redirection: the head's reply (MOVED) was read, the command is sent
		// again elsewhere and completes later; the replies behind it were read too
		List<AsyncCommand<String, String, String>> commands = write(3);
		commands.get(1).complete();
		commands.get(2).complete();
		this.channel.pipeline().fireChannelReadComplete();
		assertThat(count("SET", "none")).isEqualTo(2);
		assertThat(activeCount("SET")).isOne();
		commands.get(0).complete();
		assertThat(count("SET", "none")).isEqualTo(3);
		assertThat(activeCount("SET")).isZero();
	}

	@Test
	void aRedirectedCommandWhoseReplyEndedTheReadBatchIsRecordedWhenItCompletes() {
		// The MOVED reply of the head was the last of its batch: Lettuce took the head
		// off its stack, the command behind it still waits for its reply
		Deque<RedisCommand<?, ?, ?>> awaitingReplies = awaitingReplies();
		List<AsyncCommand<String, String, String>> commands = write(2);
		awaitingReplies.add(commands.get(1));
		this.channel.pipeline().fireChannelReadComplete();
		assertThat(count("SET", "none")).isZero();
		// Completed by the node it was sent to again, before this channel reads anything
		commands.get(0).complete();
		assertThat(count("SET", "none")).isOne();
	}

	@Test
	void aHeadStillOnLettucesStackKeepsWaitingForItsReply() {
		Deque<RedisCommand<?, ?, ?>> awaitingReplies = awaitingReplies();
		List<AsyncCommand<String, String, String>> commands = write(2);
		awaitingReplies.addAll(commands);
		this.channel.pipeline().fireChannelReadComplete();
		commands.get(0).complete();
		assertThat(count("SET", "none")).as("recorded at the end of its read batch, allocating nothing").isZero();
		awaitingReplies.remove(commands.get(0));
		this.channel.pipeline().fireChannelReadComplete();
		assertThat(count("SET", "none")).isOne();
	}

	@Test
	void aCommandBehindOneThatTimedOutDoesNotCountAsAReply() {
		List<AsyncCommand<String, String, String>> commands = write(2);
		commands.get(1).completeExceptionally(new RedisCommandTimeoutException("timed out"));
		commands.get(1).getOutput().setError("timed out");
		this.channel.pipeline().fireChannelReadComplete();
		assertThat(count("SET", "none")).isZero();
		commands.get(0).complete();
		this.channel.pipeline().fireChannelReadComplete();
		assertThat(count("SET", "none")).isEqualTo(2);
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

	@Test
	void commandsInFlightAreReadAsBootsLongTaskTimer() throws Exception {
		List<AsyncCommand<String, String, String>> commands = write(3);
		commands.get(0).complete();
		this.channel.pipeline().fireChannelReadComplete();
		Thread.sleep(5);
		assertThat(activeCount("SET")).isEqualTo(2);
		assertThat(this.registry.get(ActiveCommands.NAME)
			.tag("db.operation", "SET")
			.functionTimer()
			.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(10);
		assertThat(this.registry.get(ActiveCommands.NAME).functionTimer().getId().getTag("region")).isNull();
		assertThat(this.registry.get(ActiveCommands.NAME + ".seconds.max").gauge().value())
			.isGreaterThanOrEqualTo(0.005);
		commands.get(1).cancel(true);
		assertThat(activeCount("SET")).isEqualTo(1);
		commands.get(2).completeExceptionally(new RedisCommandTimeoutException("timed out"));
		assertThat(activeCount("SET")).isZero();
		assertThat(this.registry.get(ActiveCommands.NAME + ".seconds.max").gauge().value()).isZero();
	}

	@Test
	void commandsFollowedAfterTheCheckOrTheCloseStayActiveUntilTheyComplete() {
		List<AsyncCommand<String, String, String>> commands = write(2);
		commands.get(0).complete();
		this.channel.pipeline().fireChannelReadComplete();
		write(1);
		await().pollDelay(Duration.ofMillis(CommandMetersHandler.SLOW_MILLIS))
			.atMost(Duration.ofSeconds(2))
			.until(() -> this.channel.runScheduledPendingTasks() == -1);
		assertThat(activeCount("SET")).isEqualTo(2);
		commands.get(1).cancel(true);
		assertThat(activeCount("SET")).isEqualTo(1);
		this.channel.close();
		assertThat(activeCount("SET")).isEqualTo(1);
	}

	@Test
	void noLongTaskTimerWhenBootsHandlerWouldCreateNone() {
		MeterRegistry registry = new SimpleMeterRegistry();
		EmbeddedChannel channel = new EmbeddedChannel();
		new CommandMeters(registry, Map.of(), false).afterChannelInitialized(channel);
		AsyncCommand<String, String, String> command = new AsyncCommand<>(
				new Command<>(CommandType.SET, new StatusOutput<>(StringCodec.UTF8)));
		channel.writeOutbound(command);
		command.complete();
		channel.pipeline().fireChannelReadComplete();
		assertThat(registry.find(EndpointTimers.TIMER_NAME).timer()).isNotNull();
		assertThat(registry.find(ActiveCommands.NAME).meters()).isEmpty();
		channel.finishAndReleaseAll();
	}

	@Test
	void aWrappedCommandCancelledUnderneathBeforeItsReplyIsTaggedAsCancelled() {
		Command<String, String, String> cancelled = new Command<>(CommandType.GET,
				new StatusOutput<>(StringCodec.UTF8));
		Command<String, String, String> answered = new Command<>(CommandType.GET, new StatusOutput<>(StringCodec.UTF8));
		CommandWrapper<String, String, String> first = new CommandWrapper<>(cancelled);
		CommandWrapper<String, String, String> second = new CommandWrapper<>(answered);
		Deque<RedisCommand<?, ?, ?>> awaitingReplies = awaitingReplies();
		this.channel.writeOutbound(first, second);
		awaitingReplies.addAll(List.of(first, second));
		// What Lettuce's reactive publisher does: the plain command is cancelled, without
		// a callback; Reactor cancels a Mono's command after its one reply too
		cancelled.cancel();
		awaitingReplies.remove(second);
		second.complete();
		answered.cancel();
		this.channel.pipeline().fireChannelReadComplete();
		assertThat(count("GET", "CancellationException")).isEqualTo(1);
		assertThat(count("GET", "none")).isEqualTo(1);
		// A late reply completes the cancelled command: it is not recorded again
		awaitingReplies.remove(first);
		first.complete();
		this.channel.pipeline().fireChannelReadComplete();
		assertThat(count("GET", "CancellationException") + count("GET", "none")).isEqualTo(2);
	}

	@Test
	void aFollowedCommandCancelledUnderneathIsRecordedByTheCheckOnce() {
		Command<String, String, String> command = new Command<>(CommandType.GET, new StatusOutput<>(StringCodec.UTF8));
		CommandWrapper<String, String, String> written = new CommandWrapper<>(command);
		Deque<RedisCommand<?, ?, ?>> awaitingReplies = awaitingReplies();
		this.channel.writeOutbound(written);
		awaitingReplies.add(written);
		await().pollDelay(Duration.ofMillis(CommandMetersHandler.SLOW_MILLIS))
			.atMost(Duration.ofSeconds(2))
			.until(() -> this.channel.runScheduledPendingTasks() > 0);
		command.cancel();
		await().pollDelay(Duration.ofMillis(CommandMetersHandler.SLOW_MILLIS))
			.atMost(Duration.ofSeconds(2))
			.until(() -> this.channel.runScheduledPendingTasks() == -1);
		assertThat(count("GET", "CancellationException")).isEqualTo(1);
		awaitingReplies.remove(written);
		written.complete();
		assertThat(count("GET", "CancellationException") + count("GET", "none")).isEqualTo(1);
	}

	// Lettuce's command handler keeps a command on this stack until its reply is read;
	// the tests play both its part and the server's.
	private Deque<RedisCommand<?, ?, ?>> awaitingReplies() {
		Deque<RedisCommand<?, ?, ?>> awaitingReplies = new ArrayDeque<>();
		this.channel.pipeline().get(CommandMetersHandler.class).awaitingReplies(awaitingReplies);
		return awaitingReplies;
	}

	private long activeCount(String operation) {
		return (long) this.registry.get(ActiveCommands.NAME).tag("db.operation", operation).functionTimer().count();
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
