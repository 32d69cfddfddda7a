package io.github.lettucetuning.observation;

import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.tracing.Tracer;
import io.lettuce.core.tracing.Tracing;

/**
 * A span that starts its delegate with a {@link DeferredCompletionCommand}, so that the
 * delegate's completion callback reaches the command only after the delegate started.
 */
final class GuardedSpan extends Tracer.Span {

	private final Tracer.Span delegate;

	GuardedSpan(Tracer.Span delegate) {
		this.delegate = delegate;
	}

	@Override
	public Tracer.Span start(RedisCommand<?, ?, ?> command) {
		if (!(command instanceof CompleteableCommand<?>)) {
			this.delegate.start(command);
			return this;
		}
		DeferredCompletionCommand<?, ?, ?> view = new DeferredCompletionCommand<>(command);
		this.delegate.start(view);
		view.attach();
		return this;
	}

	@Override
	public Tracer.Span name(String name) {
		this.delegate.name(name);
		return this;
	}

	@Override
	public Tracer.Span annotate(String value) {
		this.delegate.annotate(value);
		return this;
	}

	@Override
	public Tracer.Span tag(String key, String value) {
		this.delegate.tag(key, value);
		return this;
	}

	@Override
	public Tracer.Span error(Throwable throwable) {
		this.delegate.error(throwable);
		return this;
	}

	@Override
	public Tracer.Span remoteEndpoint(Tracing.Endpoint endpoint) {
		this.delegate.remoteEndpoint(endpoint);
		return this;
	}

	@Override
	public void finish() {
		this.delegate.finish();
	}

}
