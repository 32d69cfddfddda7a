package io.github.lettucetuning.eventloop;

/**
 * What a blocked event loop's stack says, and the stack itself as a throwable so that a
 * logger prints it as it prints any stack trace.
 */
final class BlockedStack extends Throwable {

	private static final String[] RUNTIME_PACKAGES = { "java.", "javax.", "jdk.", "sun.", "com.sun." };

	private static final String[] LOOP_PACKAGES = { "io.netty.", "io.lettuce.", "reactor.",
			"org.springframework.data.redis.", "io.github.lettucetuning." };

	BlockedStack(String thread, StackTraceElement[] stack) {
		super("Stack of " + thread + " while it was blocked (not an error of its own)");
		setStackTrace(stack);
	}

	/**
	 * Return the first frame that is neither the JDK's nor the client's, usually the code
	 * that blocks the loop; else the first frame outside the JDK.
	 * @param stack the stack, innermost frame first
	 * @return the frame, or {@code "unknown"}
	 */
	static String firstApplicationFrame(StackTraceElement[] stack) {
		String fallback = null;
		for (StackTraceElement frame : stack) {
			String type = frame.getClassName();
			if (startsWithAny(type, RUNTIME_PACKAGES)) {
				continue;
			}
			if (!startsWithAny(type, LOOP_PACKAGES)) {
				return describe(frame);
			}
			if (fallback == null) {
				fallback = describe(frame);
			}
		}
		return (fallback != null) ? fallback : "unknown";
	}

	/**
	 * Return whether the loop waits for a Redis reply: a synchronous Lettuce or Spring
	 * Data call made on the loop, which only the command timeout ends.
	 * @param stack the stack, innermost frame first
	 * @return whether a frame awaits a command's future
	 */
	static boolean awaitsRedisReply(StackTraceElement[] stack) {
		for (StackTraceElement frame : stack) {
			String type = frame.getClassName();
			if (type.equals("io.lettuce.core.FutureSyncInvocationHandler")
					|| (type.startsWith("io.lettuce.core.") && frame.getMethodName().startsWith("await"))
					|| type.equals("org.springframework.data.redis.connection.lettuce.LettuceFutureUtils")) {
				return true;
			}
		}
		return false;
	}

	// As a stack trace prints it, without the class loader's name.
	private static String describe(StackTraceElement frame) {
		String location = (frame.getFileName() != null) ? frame.getFileName() + ":" + frame.getLineNumber() : "unknown";
		return frame.getClassName() + "." + frame.getMethodName() + "(" + location + ")";
	}

	private static boolean startsWithAny(String type, String[] prefixes) {
		for (String prefix : prefixes) {
			if (type.startsWith(prefix)) {
				return true;
			}
		}
		return false;
	}

	@Override
	public synchronized Throwable fillInStackTrace() {
		// The stack is the blocked thread's, set in the constructor.
		return this;
	}

}
