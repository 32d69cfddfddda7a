package io.github.lettucetuning.eventloop;

import org.jspecify.annotations.Nullable;

/**
 * What a blocked event loop's stack says, and the stack itself as a throwable so that a
 * logger prints it as it prints any stack trace.
 */
final class BlockedStack extends Throwable {

	private static final String[] RUNTIME_PACKAGES = { "java.", "javax.", "jdk.", "sun.", "com.sun." };

	private static final String[] LOOP_PACKAGES = { "io.netty.", "io.lettuce.", "reactor.",
			"org.springframework.data.redis.", "io.github.lettucetuning." };

	private static final String COMMAND_HANDLER = "io.lettuce.core.protocol.CommandHandler";

	private static final String LETTUCE_OUTPUT = "io.lettuce.core.output.";

	// Code that runs while a reply is read and decoded, and nothing else: a reply's
	// completion calls back into the application from CommandHandler, so the handler
	// counts only in its decode and read methods. Netty's buffers read their bytes
	// through PlatformDependent, where a sample of a decoding loop can land.
	private static final String[] DECODER_PACKAGES = { "io.lettuce.core.protocol.RedisStateMachine",
			"io.lettuce.core.protocol.RespCodec", LETTUCE_OUTPUT, "io.lettuce.core.codec.", "io.netty.buffer.",
			"io.netty.util.internal.PlatformDependent", "io.netty.handler.codec.",
			"io.netty.channel.epoll.AbstractEpollStreamChannel", "io.netty.channel.nio.AbstractNioByteChannel",
			"io.netty.channel.uring.AbstractIoUringStreamChannel",
			"io.netty.channel.kqueue.AbstractKQueueStreamChannel" };

	BlockedStack(String thread, StackTraceElement[] stack) {
		super("Stack of " + thread + " while it was blocked (not an error of its own)");
		setStackTrace(stack);
	}

	/**
	 * Return the frame that blocks the loop: the decoder's innermost frame while the loop
	 * decodes a reply, else the {@link #firstApplicationFrame(StackTraceElement[]) first
	 * application frame}.
	 * @param stack the stack, innermost frame first
	 * @return the frame, or {@code "unknown"}
	 */
	static String blockedAt(StackTraceElement[] stack) {
		if (decoding(stack) != null) {
			for (StackTraceElement frame : stack) {
				if (!startsWithAny(frame.getClassName(), RUNTIME_PACKAGES)) {
					return describe(frame);
				}
			}
		}
		return firstApplicationFrame(stack);
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
	 * Return the Lettuce output a reply is being decoded into, if the loop is decoding
	 * one: the innermost frame outside the JDK is Lettuce's decoder (its
	 * {@code RedisStateMachine}, a command output, a codec, {@code CommandHandler}'s
	 * decode or read methods) or Netty's read path, not application code called back from
	 * it.
	 * @param stack the stack, innermost frame first
	 * @return the output's simple name ({@code MapOutput}), an empty string when the
	 * output does not show, or {@code null} if the loop is not decoding
	 */
	static @Nullable String decoding(StackTraceElement[] stack) {
		String output = null;
		boolean decoding = false;
		for (StackTraceElement frame : stack) {
			String type = frame.getClassName();
			if (startsWithAny(type, RUNTIME_PACKAGES)) {
				continue;
			}
			if (!decoding) {
				if (!isDecoderFrame(frame)) {
					return null;
				}
				decoding = true;
			}
			if (output == null && type.startsWith(LETTUCE_OUTPUT)) {
				output = type.substring(type.lastIndexOf('.') + 1);
			}
			if (type.equals(COMMAND_HANDLER)) {
				break;
			}
		}
		return decoding ? ((output != null) ? output : "") : null;
	}

	private static boolean isDecoderFrame(StackTraceElement frame) {
		String type = frame.getClassName();
		if (type.equals(COMMAND_HANDLER)) {
			String method = frame.getMethodName();
			return method.startsWith("decode") || method.equals("channelRead") || method.equals("canDecode");
		}
		return startsWithAny(type, DECODER_PACKAGES);
	}

	/**
	 * Return whether the loop waits for work: it sits in its selector or, for a loop
	 * without I/O, its task queue.
	 * @param stack the stack, innermost frame first
	 * @return whether the innermost frame outside the JDK is the loop's wait
	 */
	static boolean idle(StackTraceElement[] stack) {
		for (StackTraceElement frame : stack) {
			String type = frame.getClassName();
			if (startsWithAny(type, RUNTIME_PACKAGES)) {
				continue;
			}
			String method = frame.getMethodName();
			return (type.startsWith("io.netty.channel.")
					&& (method.startsWith("epollWait") || method.startsWith("select") || method.startsWith("keventWait")
							|| method.startsWith("submitAndWait") || method.startsWith("ioUringWait")))
					|| (type.equals("io.netty.util.concurrent.SingleThreadEventExecutor") && method.equals("takeTask"));
		}
		return false;
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
