package io.github.lettucetuning.connection;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

import org.springframework.util.ClassUtils;

/**
 * A view of a native connection whose reactive commands count themselves in flight from
 * subscription until they complete, fail or are cancelled. Spring Data Redis gives a
 * reactive operation no end signal on a shared connection (its reactive connection is
 * package-private and closing it does nothing for a shared one), so the count is kept per
 * command instead of per operation. Everything but {@code reactive()} goes straight to
 * the connection.
 */
// Works around Spring Data giving a reactive operation on a shared connection no end
// signal:
// docs/upstream.md#reactive-in-flight-count-per-command
final class CommandCountingConnection {

	private CommandCountingConnection() {
	}

	/**
	 * Return a view of the connection that counts its reactive commands.
	 * @param connection the native connection
	 * @param inFlight the counter
	 * @return the view, implementing every interface of the connection
	 */
	static StatefulConnection<?, ?> wrap(StatefulConnection<?, ?> connection, AtomicInteger inFlight) {
		Object reactive = reactiveCommands(connection);
		Object countingReactive = (reactive != null) ? proxy(reactive, new CountingCommands(reactive, inFlight)) : null;
		return (StatefulConnection<?, ?>) proxy(connection, new Connection(connection, countingReactive));
	}

	private static @Nullable Object reactiveCommands(StatefulConnection<?, ?> connection) {
		if (connection instanceof StatefulRedisConnection<?, ?> redis) {
			return redis.reactive();
		}
		if (connection instanceof StatefulRedisClusterConnection<?, ?> cluster) {
			return cluster.reactive();
		}
		return null;
	}

	private static Object proxy(Object target, InvocationHandler handler) {
		// Only public interfaces: a proxy of a non-public one would have to live in its
		// package.
		Class<?>[] interfaces = Arrays
			.stream(ClassUtils.getAllInterfacesForClass(target.getClass(), target.getClass().getClassLoader()))
			.filter((type) -> Modifier.isPublic(type.getModifiers()))
			.toArray(Class<?>[]::new);
		return Proxy.newProxyInstance(target.getClass().getClassLoader(), interfaces, handler);
	}

	/**
	 * Count one command: up on the first request, when Lettuce sends it, and down once on
	 * completion, error or cancellation. A subscription that never requests sends nothing
	 * and never counts: Reactor can subscribe a command late, after its subscriber went
	 * away, and leave it without a request or a cancel, which counted from subscription
	 * would stay in flight forever.
	 * @param <T> the element type
	 * @param command the command's publisher
	 * @param inFlight the counter
	 * @return the counting publisher
	 */
	static <T> Mono<T> count(Mono<T> command, AtomicInteger inFlight) {
		return Mono.defer(() -> {
			Dispatch dispatch = new Dispatch(inFlight);
			return command.doOnRequest(dispatch::requested).doFinally(dispatch::ended);
		});
	}

	/**
	 * The {@link Flux} twin of {@link #count(Mono, AtomicInteger)}.
	 * @param <T> the element type
	 * @param command the command's publisher
	 * @param inFlight the counter
	 * @return the counting publisher
	 */
	static <T> Flux<T> count(Flux<T> command, AtomicInteger inFlight) {
		return Flux.defer(() -> {
			Dispatch dispatch = new Dispatch(inFlight);
			return command.doOnRequest(dispatch::requested).doFinally(dispatch::ended);
		});
	}

	private static @Nullable Object invoke(Object target, Method method, @Nullable Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	private record Connection(StatefulConnection<?, ?> target,
			@Nullable Object countingReactive) implements InvocationHandler {

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			if (this.countingReactive != null && method.getName().equals("reactive")
					&& method.getParameterCount() == 0) {
				return this.countingReactive;
			}
			if (method.getName().equals("equals") && method.getParameterCount() == 1) {
				return args != null && (args[0] == proxy || this.target.equals(args[0]));
			}
			return CommandCountingConnection.invoke(this.target, method, args);
		}

	}

	private record CountingCommands(Object target, AtomicInteger inFlight) implements InvocationHandler {

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			if (method.getName().equals("equals") && method.getParameterCount() == 1) {
				return args != null && (args[0] == proxy || this.target.equals(args[0]));
			}
			Object result = CommandCountingConnection.invoke(this.target, method, args);
			if (result instanceof Mono<?> mono) {
				return count(mono, this.inFlight);
			}
			if (result instanceof Flux<?> flux) {
				return count(flux, this.inFlight);
			}
			return result;
		}

	}

	/**
	 * One subscription's part in the count: counted once, on its first request, and
	 * uncounted once, when it ends, whichever thread gets there first.
	 */
	private static final class Dispatch extends AtomicInteger {

		private static final int WAITING = 0;

		private static final int COUNTED = 1;

		private static final int ENDED = 2;

		private final AtomicInteger inFlight;

		Dispatch(AtomicInteger inFlight) {
			this.inFlight = inFlight;
		}

		void requested(long demand) {
			if (compareAndSet(WAITING, COUNTED)) {
				this.inFlight.incrementAndGet();
			}
		}

		void ended(SignalType signal) {
			if (getAndSet(ENDED) == COUNTED) {
				this.inFlight.decrementAndGet();
			}
		}

	}

}
