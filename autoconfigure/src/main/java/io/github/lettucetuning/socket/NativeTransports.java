package io.github.lettucetuning.socket;

import io.lettuce.core.resource.EpollProvider;
import io.lettuce.core.resource.IOUringProvider;
import io.lettuce.core.resource.KqueueProvider;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Tells which Netty transport Lettuce uses in this JVM. Lettuce decides it once, when its
 * transport providers initialise: epoll, else kqueue, else io_uring, else NIO, each only
 * if its native library is on the classpath, loads, and is not switched off with the
 * system properties {@value #EPOLL_PROPERTY}, {@value #KQUEUE_PROPERTY} or
 * {@value #IO_URING_PROPERTY}. A transport whose classes the given class loader cannot
 * see counts as unavailable.
 *
 * @since 0.1.0
 */
public final class NativeTransports {

	/**
	 * Lettuce's system property switching epoll off ({@code false}).
	 */
	public static final String EPOLL_PROPERTY = "io.lettuce.core.epoll";

	/**
	 * Lettuce's system property switching io_uring off ({@code false}).
	 */
	public static final String IO_URING_PROPERTY = "io.lettuce.core.iouring";

	/**
	 * Lettuce's system property switching kqueue off ({@code false}).
	 */
	public static final String KQUEUE_PROPERTY = "io.lettuce.core.kqueue";

	static final String EPOLL_CLASS = "io.netty.channel.epoll.Epoll";

	static final String IO_URING_CLASS = "io.netty.channel.uring.IoUring";

	static final String KQUEUE_CLASS = "io.netty.channel.kqueue.KQueue";

	private NativeTransports() {
	}

	/**
	 * Return the transport Lettuce uses for TCP connections.
	 * @param classLoader the application's class loader
	 * @return the transport in use
	 */
	public static NettyTransport inUse(@Nullable ClassLoader classLoader) {
		if (isAvailable(NettyTransport.EPOLL, classLoader)) {
			return NettyTransport.EPOLL;
		}
		if (isAvailable(NettyTransport.KQUEUE, classLoader)) {
			return NettyTransport.KQUEUE;
		}
		if (isAvailable(NettyTransport.IO_URING, classLoader)) {
			return NettyTransport.IO_URING;
		}
		return NettyTransport.NIO;
	}

	/**
	 * Return whether Lettuce can use a transport. Initialises Lettuce's provider of that
	 * transport, which fixes its system property for the life of the JVM.
	 * @param transport the transport
	 * @param classLoader the application's class loader
	 * @return whether the transport is available
	 */
	public static boolean isAvailable(NettyTransport transport, @Nullable ClassLoader classLoader) {
		return switch (transport) {
			case EPOLL -> hasClasses(transport, classLoader) && EpollProvider.isAvailable();
			case IO_URING -> hasClasses(transport, classLoader) && IOUringProvider.isAvailable();
			case KQUEUE -> hasClasses(transport, classLoader) && KqueueProvider.isAvailable();
			case NIO -> true;
		};
	}

	/**
	 * Return whether the class loader sees the Netty classes of a native transport.
	 * @param transport the transport
	 * @param classLoader the application's class loader
	 * @return whether its classes are present
	 */
	public static boolean hasClasses(NettyTransport transport, @Nullable ClassLoader classLoader) {
		return switch (transport) {
			case EPOLL -> ClassUtils.isPresent(EPOLL_CLASS, classLoader);
			case IO_URING -> ClassUtils.isPresent(IO_URING_CLASS, classLoader);
			case KQUEUE -> ClassUtils.isPresent(KQUEUE_CLASS, classLoader);
			case NIO -> true;
		};
	}

	/**
	 * Explain why a native transport is unavailable: its classes are missing, Lettuce's
	 * system property switches it off, or its native library does not load.
	 * @param transport the transport
	 * @param classLoader the application's class loader
	 * @return the reason
	 */
	public static String unavailabilityReason(NettyTransport transport, @Nullable ClassLoader classLoader) {
		String artifact = "io.netty:netty-transport-native-" + artifactName(transport);
		if (!hasClasses(transport, classLoader)) {
			return "its classes are not on the classpath (add " + artifact + " with the classifier of your platform, "
					+ "e.g. linux-x86_64)";
		}
		String property = switchProperty(transport);
		if (property != null && "false".equalsIgnoreCase(System.getProperty(property))) {
			return "the system property " + property + "=false switches it off in Lettuce";
		}
		Throwable cause = nativeUnavailabilityCause(transport);
		if (cause != null) {
			return "its native library does not load: " + cause;
		}
		return "Lettuce does not use it in this JVM";
	}

	/**
	 * Return Lettuce's system property that switches a native transport off.
	 * @param transport the transport
	 * @return the property name, {@code null} for NIO
	 */
	public static @Nullable String switchProperty(NettyTransport transport) {
		return switch (transport) {
			case EPOLL -> EPOLL_PROPERTY;
			case IO_URING -> IO_URING_PROPERTY;
			case KQUEUE -> KQUEUE_PROPERTY;
			case NIO -> null;
		};
	}

	private static String artifactName(NettyTransport transport) {
		return (transport == NettyTransport.IO_URING) ? "io_uring" : transport.displayName();
	}

	private static @Nullable Throwable nativeUnavailabilityCause(NettyTransport transport) {
		try {
			return switch (transport) {
				case EPOLL -> EpollCause.get();
				case IO_URING -> IoUringCause.get();
				default -> null;
			};
		}
		catch (LinkageError ex) {
			return ex;
		}
	}

	// Nested so that the optional Netty classes load only when present.
	private static final class EpollCause {

		static @Nullable Throwable get() {
			return io.netty.channel.epoll.Epoll.unavailabilityCause();
		}

	}

	private static final class IoUringCause {

		static @Nullable Throwable get() {
			return io.netty.channel.uring.IoUring.unavailabilityCause();
		}

	}

}
