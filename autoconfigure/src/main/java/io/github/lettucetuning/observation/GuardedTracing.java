package io.github.lettucetuning.observation;

import java.net.SocketAddress;

import io.lettuce.core.tracing.TraceContextProvider;
import io.lettuce.core.tracing.Tracer;
import io.lettuce.core.tracing.TracerProvider;
import io.lettuce.core.tracing.Tracing;

/**
 * A {@link Tracing} whose spans start their observation before they follow their
 * command's completion.
 * <p>
 * Lettuce's {@code MicrometerTracing} span registers its completion callback on the
 * command and only then starts the observation. A command cancelled by another thread in
 * between (a reactive subscriber that times out or takes nothing) stops the observation
 * before it started; Micrometer's meter handler then throws from
 * {@code Subscription.cancel()}, and Reactor's {@code timeout} operator, whose cancel
 * that is, never signals its subscriber: the operation hangs. The spans here hand the
 * delegate a view of the command that keeps the callback, and attach it to the command
 * once the observation has started, exactly once, so that completing or cancelling a
 * command never throws.
 *
 * @since 0.1.0
 */
public final class GuardedTracing implements Tracing {

	private final Tracing delegate;

	private final TracerProvider tracerProvider;

	/**
	 * Guard the spans of a tracing.
	 * @param delegate the tracing that creates the spans
	 */
	public GuardedTracing(Tracing delegate) {
		this.delegate = delegate;
		// Asked once: Lettuce asks for the tracer per command, and the Micrometer
		// tracing's is one instance for its lifetime
		Tracer tracer = new GuardedTracer(delegate.getTracerProvider().getTracer());
		this.tracerProvider = () -> tracer;
	}

	/**
	 * Return the tracing whose spans are guarded.
	 * @return the delegate
	 */
	public Tracing getDelegate() {
		return this.delegate;
	}

	@Override
	public TracerProvider getTracerProvider() {
		return this.tracerProvider;
	}

	@Override
	public TraceContextProvider initialTraceContextProvider() {
		return this.delegate.initialTraceContextProvider();
	}

	@Override
	public boolean isEnabled() {
		return this.delegate.isEnabled();
	}

	@Override
	public boolean includeCommandArgsInSpanTags() {
		return this.delegate.includeCommandArgsInSpanTags();
	}

	@Override
	public Endpoint createEndpoint(SocketAddress socketAddress) {
		return this.delegate.createEndpoint(socketAddress);
	}

	private static final class GuardedTracer extends Tracer {

		private final Tracer delegate;

		GuardedTracer(Tracer delegate) {
			this.delegate = delegate;
		}

		@Override
		public Span nextSpan() {
			return new GuardedSpan(this.delegate.nextSpan());
		}

		@Override
		public Span nextSpan(io.lettuce.core.tracing.TraceContext traceContext) {
			return new GuardedSpan(this.delegate.nextSpan(traceContext));
		}

	}

}
