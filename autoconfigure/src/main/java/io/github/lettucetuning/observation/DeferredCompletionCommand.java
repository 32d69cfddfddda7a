package io.github.lettucetuning.observation;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.buffer.ByteBuf;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A view of a command for a span to start with: everything reads through to the command,
 * but completion callbacks are kept until {@link #attach()} hands them to the command,
 * each to run once and never to throw into the thread that completes or cancels it.
 *
 * @param <K> key type
 * @param <V> value type
 * @param <T> result type
 */
final class DeferredCompletionCommand<K, V, T> implements RedisCommand<K, V, T>, CompleteableCommand<T> {

	private static final Log logger = LogFactory.getLog(DeferredCompletionCommand.class);

	private final RedisCommand<K, V, T> command;

	private final List<BiConsumer<? super @Nullable T, @Nullable Throwable>> callbacks = new ArrayList<>(1);

	DeferredCompletionCommand(RedisCommand<K, V, T> command) {
		this.command = command;
	}

	@SuppressWarnings("unchecked")
	void attach() {
		CompleteableCommand<T> completeable = (CompleteableCommand<T>) this.command;
		for (BiConsumer<? super @Nullable T, @Nullable Throwable> callback : this.callbacks) {
			AtomicBoolean ran = new AtomicBoolean();
			completeable.onComplete((T result, Throwable failure) -> runOnce(ran, callback, result, failure));
			// A wrapper command that completed already keeps a late callback without
			// running it
			if (this.command.isDone()) {
				runOnce(ran, callback, null, null);
			}
		}
	}

	private static <T> void runOnce(AtomicBoolean ran, BiConsumer<? super @Nullable T, @Nullable Throwable> callback,
			@Nullable T result, @Nullable Throwable failure) {
		if (ran.compareAndSet(false, true)) {
			try {
				callback.accept(result, failure);
			}
			catch (RuntimeException ex) {
				logger.debug("Observation of a Redis command failed to complete", ex);
			}
		}
	}

	@Override
	public void onComplete(Consumer<? super T> action) {
		this.callbacks.add((result, failure) -> action.accept(result));
	}

	@Override
	public void onComplete(BiConsumer<? super T, Throwable> action) {
		this.callbacks.add(action);
	}

	@Override
	public CommandOutput<K, V, T> getOutput() {
		return this.command.getOutput();
	}

	@Override
	public void complete() {
		this.command.complete();
	}

	@Override
	public boolean completeExceptionally(Throwable throwable) {
		return this.command.completeExceptionally(throwable);
	}

	@Override
	public void cancel() {
		this.command.cancel();
	}

	@Override
	public CommandArgs<K, V> getArgs() {
		return this.command.getArgs();
	}

	@Override
	public ProtocolKeyword getType() {
		return this.command.getType();
	}

	@Override
	public void encode(ByteBuf buf) {
		this.command.encode(buf);
	}

	@Override
	public boolean isCancelled() {
		return this.command.isCancelled();
	}

	@Override
	public boolean isDone() {
		return this.command.isDone();
	}

	@Override
	public void setOutput(CommandOutput<K, V, T> output) {
		this.command.setOutput(output);
	}

	@Override
	public String toString() {
		return this.command.toString();
	}

}
