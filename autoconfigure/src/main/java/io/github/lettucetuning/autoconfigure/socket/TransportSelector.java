package io.github.lettucetuning.autoconfigure.socket;

import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import io.github.lettucetuning.socket.NativeTransports;
import io.github.lettucetuning.socket.NettyTransport;
import io.github.lettucetuning.socket.Transport;
import org.jspecify.annotations.Nullable;

/**
 * Makes Lettuce use the requested transport. Lettuce picks its transport once per JVM,
 * when its transport providers initialise, reading the system properties
 * {@code io.lettuce.core.epoll}, {@code io.lettuce.core.kqueue} and
 * {@code io.lettuce.core.iouring}; an event loop group alone cannot change it, since the
 * channel class and socket options follow the same static choice. So this sets those
 * properties (never overriding one the user set) before anything initialises Lettuce,
 * then checks that Lettuce really uses the requested transport.
 */
final class TransportSelector {

	static final String PROPERTY = "lettuce.tuning.socket.transport";

	private final Platform platform;

	TransportSelector(Platform platform) {
		this.platform = platform;
	}

	static TransportSelector forClassLoader(@Nullable ClassLoader classLoader) {
		return new TransportSelector(new JvmPlatform(classLoader));
	}

	/**
	 * Prepare and verify the transport.
	 * @param requested the requested transport
	 * @return the transport Lettuce uses
	 * @throws InvalidTuningPropertyException if Lettuce cannot use the requested
	 * transport
	 */
	NettyTransport select(Transport requested) {
		return switch (requested) {
			case AUTO -> auto();
			case EPOLL -> require(NettyTransport.EPOLL, "epoll");
			case IO_URING -> require(NettyTransport.IO_URING, "io-uring");
			case NIO -> nio();
		};
	}

	// Epoll beats io_uring anyway; switching io_uring off spares Lettuce's warning on
	// every connect.
	private NettyTransport auto() {
		if (this.platform.hasClasses(NettyTransport.EPOLL) && this.platform.hasClasses(NettyTransport.IO_URING)) {
			switchOffUnlessSet(NettyTransport.IO_URING);
		}
		return this.platform.inUse();
	}

	private NettyTransport require(NettyTransport wanted, String value) {
		if (!this.platform.hasClasses(wanted)) {
			throw unavailable(value, wanted);
		}
		for (NettyTransport other : NettyTransport.values()) {
			if (other != wanted && other.isNative() && this.platform.hasClasses(other)) {
				switchOffUnlessSet(other);
			}
		}
		if (!this.platform.isAvailable(wanted)) {
			throw unavailable(value, wanted);
		}
		NettyTransport inUse = this.platform.inUse();
		if (inUse != wanted) {
			throw preempted(value, inUse);
		}
		return inUse;
	}

	private NettyTransport nio() {
		for (NettyTransport transport : NettyTransport.values()) {
			if (transport.isNative() && this.platform.hasClasses(transport)) {
				switchOffUnlessSet(transport);
			}
		}
		NettyTransport inUse = this.platform.inUse();
		if (inUse != NettyTransport.NIO) {
			throw preempted("nio", inUse);
		}
		return inUse;
	}

	// Works around Lettuce choosing its transport once per JVM from system properties:
	// docs/upstream.md#transport-system-properties
	private void switchOffUnlessSet(NettyTransport transport) {
		String property = switchProperty(transport);
		if (this.platform.getProperty(property) == null) {
			this.platform.setProperty(property, "false");
		}
	}

	private InvalidTuningPropertyException unavailable(String value, NettyTransport wanted) {
		return new InvalidTuningPropertyException(PROPERTY, value,
				wanted.displayName() + " is not available: " + this.platform.unavailabilityReason(wanted),
				"Make " + wanted.displayName() + " available, or set " + PROPERTY
						+ " to 'auto' (the default) to use the best transport this platform offers.");
	}

	private InvalidTuningPropertyException preempted(String value, NettyTransport inUse) {
		return new InvalidTuningPropertyException(PROPERTY, value,
				"Lettuce already uses " + inUse.displayName() + " in this JVM: its transport was chosen before "
						+ "lettuce-tuning could switch, or a system property forces it",
				"Start the JVM with -D" + switchProperty(inUse) + "=false, or set " + PROPERTY
						+ " to 'auto' (the default).");
	}

	private static String switchProperty(NettyTransport transport) {
		String property = NativeTransports.switchProperty(transport);
		if (property == null) {
			throw new IllegalArgumentException(transport + " cannot be switched off");
		}
		return property;
	}

	/**
	 * What the selection reads and changes: transport availability and system properties.
	 */
	interface Platform {

		boolean hasClasses(NettyTransport transport);

		boolean isAvailable(NettyTransport transport);

		NettyTransport inUse();

		String unavailabilityReason(NettyTransport transport);

		@Nullable String getProperty(String key);

		void setProperty(String key, String value);

	}

	/**
	 * The real JVM: Lettuce's providers and system properties.
	 */
	private record JvmPlatform(@Nullable ClassLoader classLoader) implements Platform {

		@Override
		public boolean hasClasses(NettyTransport transport) {
			return NativeTransports.hasClasses(transport, this.classLoader);
		}

		@Override
		public boolean isAvailable(NettyTransport transport) {
			return NativeTransports.isAvailable(transport, this.classLoader);
		}

		@Override
		public NettyTransport inUse() {
			return NativeTransports.inUse(this.classLoader);
		}

		@Override
		public String unavailabilityReason(NettyTransport transport) {
			return NativeTransports.unavailabilityReason(transport, this.classLoader);
		}

		@Override
		public @Nullable String getProperty(String key) {
			return System.getProperty(key);
		}

		@Override
		public void setProperty(String key, String value) {
			System.setProperty(key, value);
		}

	}

}
