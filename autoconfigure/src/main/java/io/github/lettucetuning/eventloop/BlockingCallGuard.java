package io.github.lettucetuning.eventloop;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;

/**
 * Keeps a synchronous Redis call made on one of the client's event loops from hanging
 * that loop, and only where it would hang: when the call's command would go out through
 * the calling loop, which alone could read the reply the call waits for. There the
 * command is refused before anything is written, and the caller gets a
 * {@link BlockingCallRefusedException} at once. A call whose connection another loop
 * serves completes, as it does without the starter; it still holds its own loop for a
 * round trip, so each place in the application that makes one is logged once, at WARN.
 * <p>
 * The factory marks the thread from {@code getConnection()} to the connection's
 * {@code close()} ({@link #enterSynchronousCall()}); the channel's handler asks
 * {@link #callerWaitsOnThisLoop()} for each command it writes. Writes run on the
 * channel's own loop, so a marked thread that writes is the caller that will wait. Off
 * the event loops both cost one type test of the current thread.
 * <p>
 * In strict mode every synchronous call on an event loop is refused
 * ({@link #rejectOnEventLoop()}), whichever loop serves its connection.
 *
 * @since 0.2.0
 */
public final class BlockingCallGuard {

	private static final Log logger = LogFactory.getLog(BlockingCallGuard.class);

	private static final String SPRING_DATA_REDIS = "org.springframework.data.redis.";

	private static final String CONNECTION_FACTORY = "io.github.lettucetuning.connection.";

	private static final String ADVICE = "Move the work off the event loop (for example "
			+ "publishOn(Schedulers.boundedElastic()) before the operator that makes the call, or an executor for the "
			+ "listener), or use the reactive API (ReactiveRedisTemplate) and compose its result instead of blocking on it.";

	// Bounds the memory of call sites warned about; an application with more than this
	// many has been told.
	private static final int MAX_CALL_SITES = 1024;

	private static final Set<String> warnedCallSites = ConcurrentHashMap.newKeySet();

	private BlockingCallGuard() {
	}

	/**
	 * Return whether the current thread is one of a client's event loops.
	 * @return whether a synchronous call here would hold an event loop
	 */
	public static boolean onEventLoop() {
		return Thread.currentThread() instanceof EventLoopThread;
	}

	/**
	 * Throw if the current thread is one of a client's event loops: the strict mode.
	 * @throws InvalidDataAccessApiUsageException naming the thread, the operation, its
	 * caller and the fix
	 */
	public static void rejectOnEventLoop() {
		if (onEventLoop()) {
			throw new InvalidDataAccessApiUsageException(strictMessage(Thread.currentThread().getName()));
		}
	}

	/**
	 * Note that the current thread, if it is an event loop, holds a synchronous
	 * connection open. Pair with {@link #exitSynchronousCall(EventLoopThread)}.
	 * @return the marked event-loop thread, or {@code null} off the event loops
	 */
	public static @Nullable EventLoopThread enterSynchronousCall() {
		if (!(Thread.currentThread() instanceof EventLoopThread thread)) {
			return null;
		}
		thread.enterSynchronousCall();
		return thread;
	}

	/**
	 * Warn, once for each place in the application that makes one, that a synchronous
	 * call runs on an event loop of the client. Nothing happens off the event loops.
	 */
	public static void warnOnce() {
		if (!(Thread.currentThread() instanceof EventLoopThread thread) || !logger.isWarnEnabled()
				|| warnedCallSites.size() >= MAX_CALL_SITES) {
			return;
		}
		String callSite = describe(frames());
		if (warnedCallSites.add(callSite)) {
			logger.warn("A synchronous Redis call" + callSite + " runs on " + thread.getName()
					+ ", one of the Lettuce event-loop threads. It holds that loop for a round trip, and every command "
					+ "of the connections the loop serves waits meanwhile; where its own command would go out through "
					+ "this loop it is refused, since it could never complete. " + ADVICE
					+ " Logged once for this call site.");
		}
	}

	/**
	 * Note that a synchronous connection opened on an event loop is closed.
	 * @param thread what {@link #enterSynchronousCall()} returned
	 */
	public static void exitSynchronousCall(@Nullable EventLoopThread thread) {
		if (thread != null) {
			thread.exitSynchronousCall();
		}
	}

	/**
	 * Return whether a command written on the current thread would be awaited by it. Call
	 * it where commands are written to a channel, which happens on the channel's loop.
	 * @return whether the writing thread is an event loop inside a synchronous call
	 */
	public static boolean callerWaitsOnThisLoop() {
		return Thread.currentThread() instanceof EventLoopThread thread && thread.inSynchronousCall();
	}

	/**
	 * Return the exception for a command refused because its caller waits on the loop
	 * that would write it.
	 * @return the exception, naming the thread, the operation, its caller and the fix
	 */
	public static BlockingCallRefusedException refusal() {
		String thread = Thread.currentThread().getName();
		return new BlockingCallRefusedException("A synchronous Redis call" + describe(frames()) + " ran on " + thread
				+ ", one of the Lettuce event-loop threads, and its command would go out through that same loop, "
				+ "which alone reads the reply it waits for. It could never complete: it would hang until the command "
				+ "timeout with every command on that loop's connections, so lettuce-tuning refused it before sending "
				+ "anything. " + ADVICE);
	}

	static String strictMessage(String thread) {
		return "A synchronous Redis call" + describe(frames()) + " ran on " + thread
				+ ", one of the Lettuce event-loop threads that read every reply of this client. Such a call holds "
				+ "the loop for a round trip at best and hangs it until the command timeout where its command goes "
				+ "out through that loop, and lettuce.tuning.resilience.blocking-call-guard.strict=true refuses every "
				+ "one before sending anything. " + ADVICE;
	}

	// Tests that count the warnings start from none.
	static void forgetCallSites() {
		warnedCallSites.clear();
	}

	private static List<StackWalker.StackFrame> frames() {
		return StackWalker.getInstance().walk((stack) -> stack.limit(96).toList());
	}

	// "(ValueOperations.get, called from com.example.Handler.lambda$get$0)": the last
	// frame of Spring Data or of the connection factory names the operation, the frame
	// after it the application code that called it.
	private static String describe(List<StackWalker.StackFrame> frames) {
		StackWalker.StackFrame operation = null;
		for (StackWalker.StackFrame frame : frames) {
			String type = frame.getClassName();
			if (type.startsWith(SPRING_DATA_REDIS) || type.startsWith(CONNECTION_FACTORY)) {
				operation = frame;
			}
			else if (operation != null) {
				return " (" + name(operation) + ", called from " + type + "." + frame.getMethodName() + ")";
			}
		}
		return (operation != null) ? " (" + name(operation) + ")" : "";
	}

	private static String name(StackWalker.StackFrame frame) {
		String type = frame.getClassName();
		String simpleName = type.substring(type.lastIndexOf('.') + 1);
		if (simpleName.startsWith("Default") && simpleName.endsWith("Operations")) {
			simpleName = simpleName.substring("Default".length());
		}
		return simpleName + "." + frame.getMethodName();
	}

}
