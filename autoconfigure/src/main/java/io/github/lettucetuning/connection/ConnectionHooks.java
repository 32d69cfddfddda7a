package io.github.lettucetuning.connection;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.lettuce.core.api.StatefulConnection;
import org.jspecify.annotations.Nullable;

/**
 * What a Spring Data connection reports: a failed command to the exception listener, and,
 * once, the end of its operation to the shared connection set's in-flight count (closing
 * a connection twice must not count twice). Every operation on a shared connection gets
 * an instance of its own; otherwise the factory's one instance serves every operation.
 */
final class ConnectionHooks {

	private final @Nullable StatefulConnection<?, ?> shared;

	private final @Nullable SharedConnectionSet set;

	private final @Nullable Consumer<? super Exception> listener;

	private final AtomicBoolean closed = new AtomicBoolean();

	ConnectionHooks(@Nullable StatefulConnection<?, ?> shared, @Nullable SharedConnectionSet set,
			@Nullable Consumer<? super Exception> listener) {
		this.shared = shared;
		this.set = set;
		this.listener = listener;
	}

	@Nullable Consumer<? super Exception> listener() {
		return this.listener;
	}

	void failed(Exception cause) {
		if (this.listener != null) {
			this.listener.accept(cause);
		}
	}

	void closed() {
		if (this.set != null && this.shared != null && this.closed.compareAndSet(false, true)) {
			this.set.release(this.shared);
		}
	}

}
