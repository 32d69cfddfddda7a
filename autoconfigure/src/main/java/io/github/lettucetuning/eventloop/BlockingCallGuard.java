package io.github.lettucetuning.eventloop;

import java.util.List;

import org.springframework.dao.InvalidDataAccessApiUsageException;

/**
 * Refuses a synchronous Redis call on one of the client's event loops before anything is
 * written. Such a call would wait for a reply that only the calling thread can read: it
 * hangs until the command timeout, and every other command whose connection that loop
 * serves hangs with it. The check is one type test of the current thread.
 *
 * @since 0.2.0
 */
public final class BlockingCallGuard {

	private static final String SPRING_DATA_REDIS = "org.springframework.data.redis.";

	private static final String CONNECTION_FACTORY = "io.github.lettucetuning.connection.";

	private BlockingCallGuard() {
	}

	/**
	 * Return whether the current thread is one of a client's event loops.
	 * @return whether a synchronous call here would block an event loop
	 */
	public static boolean onEventLoop() {
		return Thread.currentThread() instanceof EventLoopThread;
	}

	/**
	 * Throw if the current thread is one of a client's event loops.
	 * @throws InvalidDataAccessApiUsageException naming the thread, the operation, its
	 * caller and the fix
	 */
	public static void rejectOnEventLoop() {
		if (onEventLoop()) {
			throw new InvalidDataAccessApiUsageException(message(Thread.currentThread().getName()));
		}
	}

	static String message(String thread) {
		List<StackWalker.StackFrame> frames = StackWalker.getInstance().walk((stack) -> stack.limit(64).toList());
		return "A synchronous Redis call" + describe(frames) + " ran on " + thread
				+ ", one of the Lettuce event-loop threads that read every reply of this client. It would wait for a "
				+ "reply that only this thread can read, and every command on its connections would hang until the "
				+ "command timeout, so lettuce-tuning refused it before sending anything. Move the work off the event "
				+ "loop (for example publishOn(Schedulers.boundedElastic()) before the operator that makes the call), "
				+ "or use the reactive API (ReactiveRedisTemplate) and compose its result instead of blocking on it.";
	}

	// "(ValueOperations.get, called from com.example.Handler.lambda$get$0)": the last
	// frame
	// of Spring Data or of the connection factory names the operation, the frame after it
	// the application code that called it.
	private static String describe(List<StackWalker.StackFrame> frames) {
		StackWalker.StackFrame operation = null;
		for (StackWalker.StackFrame frame : frames) {
			String type = frame.getClassName();
			if (type.equals(BlockingCallGuard.class.getName())) {
				continue;
			}
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
