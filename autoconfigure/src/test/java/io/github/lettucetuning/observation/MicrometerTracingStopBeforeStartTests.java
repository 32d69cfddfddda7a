package io.github.lettucetuning.observation;

import java.net.InetSocketAddress;
import java.util.function.BiConsumer;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.tracing.MicrometerTracing;
import io.lettuce.core.tracing.Tracer;
import io.lettuce.core.tracing.Tracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The cause, reduced for Lettuce: {@code MicrometerTracing}'s span registers its
 * completion callback before it starts its observation. A command cancelled in between
 * stops the observation before it started, and Micrometer's meter handler throws from the
 * cancel (in the client: out of {@code Subscription.cancel()}, where Reactor's
 * {@code timeout} swallows it and never signals its subscriber). A command that completed
 * before the span started runs the callback at once, and the observation starts after it
 * stopped and runs for ever. The first two tests document Lettuce's behaviour and fail
 * once Lettuce fixes it; the others show the guarded span.
 */
class MicrometerTracingStopBeforeStartTests {

	private final MeterRegistry meters = new SimpleMeterRegistry();

	private final MicrometerTracing tracing = new MicrometerTracing(registry(this.meters), "Redis");

	@Test
	void lettucesSpanThrowsWhenItsCommandIsCancelledBetweenItsCallbackAndItsStart() {
		Tracer.Span span = span(this.tracing);
		assertThatIllegalArgumentException().isThrownBy(() -> span.start(new CancelledOnRegistration()))
			.withMessageContaining("Timer$Sample");
	}

	@Test
	void lettucesSpanLeavesTheObservationRunningWhenItsCommandCompletedBeforeItStarted() {
		span(this.tracing).start(cancelledCommand());
		assertThat(this.meters.get("lettuce.active").longTaskTimer().activeTasks()).isOne();
	}

	@Test
	void theGuardedSpanStartsTheObservationFirstAndStopsItOnce() {
		assertThatNoException()
			.isThrownBy(() -> span(new GuardedTracing(this.tracing)).start(new CancelledOnRegistration()));
		assertThatNoException().isThrownBy(() -> span(new GuardedTracing(this.tracing)).start(cancelledCommand()));
		assertThat(this.meters.get("lettuce").timer().count()).isEqualTo(2);
		assertThat(this.meters.get("lettuce.active").longTaskTimer().activeTasks()).isZero();
	}

	@Test
	void aCommandCompletedAfterTheStartStopsTheObservationOnce() {
		Tracer.Span span = span(new GuardedTracing(this.tracing));
		AsyncCommand<String, String, String> command = command();
		span.start(command);
		assertThat(this.meters.get("lettuce.active").longTaskTimer().activeTasks()).isOne();
		command.cancel();
		command.complete();
		assertThat(this.meters.get("lettuce").timer().count()).isOne();
		assertThat(this.meters.get("lettuce.active").longTaskTimer().activeTasks()).isZero();
	}

	// As Lettuce's command handler does: a span for the connection's server
	private static Tracer.Span span(Tracing tracing) {
		Tracer.Span span = tracing.getTracerProvider().getTracer().nextSpan();
		span.remoteEndpoint(tracing.createEndpoint(new InetSocketAddress("127.0.0.1", 6379)));
		return span;
	}

	private static AsyncCommand<String, String, String> cancelledCommand() {
		AsyncCommand<String, String, String> command = command();
		command.cancel();
		return command;
	}

	/**
	 * A command that another thread cancels right after a completion callback is
	 * registered: the race of a reactive subscriber that cancels while the event loop
	 * writes the command, made deterministic.
	 */
	private static final class CancelledOnRegistration extends CommandWrapper<String, String, String> {

		CancelledOnRegistration() {
			super(new Command<>(CommandType.GET, new StatusOutput<>(StringCodec.UTF8)));
		}

		@Override
		public void onComplete(BiConsumer<? super String, Throwable> action) {
			super.onComplete(action);
			cancel();
		}

	}

	private static AsyncCommand<String, String, String> command() {
		return new AsyncCommand<>(new Command<>(CommandType.GET, new StatusOutput<>(StringCodec.UTF8)));
	}

	private static ObservationRegistry registry(MeterRegistry meters) {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
		return registry;
	}

}
