package io.github.lettucetuning.benchmarks.observation;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.observation.CommandMeters;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.tracing.MicrometerTracing;
import io.lettuce.core.tracing.Tracer;
import io.lettuce.core.tracing.Tracing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.netty.channel.embedded.EmbeddedChannel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What timing one command costs, in nanoseconds and (with {@code -prof gc}) bytes: a SET
 * is created, written through a channel's pipeline, completed, and its read batch ends,
 * as on a connection. {@code none}: nothing records it, the baseline; {@code fast-path}:
 * lettuce-tuning's {@link CommandMeters} handler is in the pipeline; {@code boot}: the
 * span of Spring Boot's {@code lettuce} observation ({@link MicrometerTracing} with
 * Micrometer's meter handler, the {@code lettuce} timer and {@code lettuce.active}
 * long-task timer) is started as Lettuce's command handler starts it. The cost of the
 * meters is a path's figure minus {@code none}'s. One thread, no network; about 2
 * minutes.
 *
 * @since 0.2.0
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(2)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
public class CommandMetersBenchmark {

	/**
	 * Who records the command.
	 */
	@Param({ "none", "fast-path", "boot" })
	public String meters;

	private final MeterRegistry registry = new SimpleMeterRegistry();

	private final EmbeddedChannel channel = new EmbeddedChannel();

	private Tracer tracer;

	private Tracing.Endpoint endpoint;

	@Setup
	public void setUp() {
		if ("fast-path".equals(this.meters)) {
			new CommandMeters(this.registry, Map.of()).afterChannelInitialized(this.channel);
		}
		if ("boot".equals(this.meters)) {
			ObservationRegistry observations = ObservationRegistry.create();
			observations.observationConfig().observationHandler(new DefaultMeterObservationHandler(this.registry));
			MicrometerTracing tracing = new MicrometerTracing(observations, "Redis");
			this.tracer = tracing.getTracerProvider().getTracer();
			this.endpoint = tracing.createEndpoint(new InetSocketAddress("127.0.0.1", 6379));
		}
	}

	@TearDown
	public void close() {
		this.channel.finishAndReleaseAll();
		this.registry.close();
	}

	@Benchmark
	public Object command() {
		AsyncCommand<String, String, String> command = new AsyncCommand<>(
				new Command<>(CommandType.SET, new StatusOutput<>(StringCodec.UTF8)));
		if (this.tracer != null) {
			Tracer.Span span = this.tracer.nextSpan();
			span.name(command.getType().toString());
			span.remoteEndpoint(this.endpoint);
			span.start(command);
		}
		this.channel.writeOutbound(command);
		this.channel.outboundMessages().poll();
		command.complete();
		this.channel.pipeline().fireChannelReadComplete();
		return command;
	}

}
