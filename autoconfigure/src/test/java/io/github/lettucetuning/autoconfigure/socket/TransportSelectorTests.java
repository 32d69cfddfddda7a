package io.github.lettucetuning.autoconfigure.socket;

import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import io.github.lettucetuning.socket.NettyTransport;
import io.github.lettucetuning.socket.Transport;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link TransportSelector}, against a simulated JVM whose Lettuce transport
 * providers read their system property once, like Lettuce's.
 */
class TransportSelectorTests {

	@Test
	void autoKeepsLettucesChoiceAndSwitchesOffTheLosingIoUring() {
		SimulatedJvm jvm = new SimulatedJvm(EnumSet.of(NettyTransport.EPOLL, NettyTransport.IO_URING));
		assertThat(new TransportSelector(jvm).select(Transport.AUTO)).isEqualTo(NettyTransport.EPOLL);
		assertThat(jvm.properties).containsEntry("io.lettuce.core.iouring", "false")
			.doesNotContainKey("io.lettuce.core.epoll");
	}

	@Test
	void autoUsesIoUringWhenItIsTheOnlyNativeTransport() {
		SimulatedJvm jvm = new SimulatedJvm(EnumSet.of(NettyTransport.IO_URING));
		assertThat(new TransportSelector(jvm).select(Transport.AUTO)).isEqualTo(NettyTransport.IO_URING);
		assertThat(jvm.properties).isEmpty();
	}

	@Test
	void autoFallsBackToNio() {
		assertThat(new TransportSelector(new SimulatedJvm(EnumSet.noneOf(NettyTransport.class))).select(Transport.AUTO))
			.isEqualTo(NettyTransport.NIO);
	}

	@Test
	void ioUringSwitchesEpollOff() {
		SimulatedJvm jvm = new SimulatedJvm(EnumSet.of(NettyTransport.EPOLL, NettyTransport.IO_URING));
		assertThat(new TransportSelector(jvm).select(Transport.IO_URING)).isEqualTo(NettyTransport.IO_URING);
		assertThat(jvm.properties).containsEntry("io.lettuce.core.epoll", "false");
	}

	@Test
	void nioSwitchesEveryNativeTransportOff() {
		SimulatedJvm jvm = new SimulatedJvm(EnumSet.of(NettyTransport.EPOLL, NettyTransport.IO_URING));
		assertThat(new TransportSelector(jvm).select(Transport.NIO)).isEqualTo(NettyTransport.NIO);
		assertThat(jvm.properties).containsEntry("io.lettuce.core.epoll", "false")
			.containsEntry("io.lettuce.core.iouring", "false");
	}

	@Test
	void epollWhereItIsMissingFails() {
		SimulatedJvm jvm = new SimulatedJvm(EnumSet.of(NettyTransport.IO_URING));
		assertThatExceptionOfType(InvalidTuningPropertyException.class)
			.isThrownBy(() -> new TransportSelector(jvm).select(Transport.EPOLL))
			.satisfies((ex) -> {
				assertThat(ex.getProperty()).isEqualTo("lettuce.tuning.socket.transport");
				assertThat(ex.getValue()).isEqualTo("epoll");
				assertThat(ex.getReason()).contains("epoll is not available");
			});
		assertThat(jvm.properties).isEmpty();
	}

	@Test
	void aPropertyTheUserSetIsNeverOverridden() {
		SimulatedJvm jvm = new SimulatedJvm(EnumSet.of(NettyTransport.EPOLL, NettyTransport.IO_URING));
		jvm.properties.put("io.lettuce.core.iouring", "true");
		assertThat(new TransportSelector(jvm).select(Transport.AUTO)).isEqualTo(NettyTransport.EPOLL);
		assertThat(jvm.properties).containsEntry("io.lettuce.core.iouring", "true");
	}

	@Test
	void aTransportLettuceAlreadyChoseCannotBeSwitched() {
		SimulatedJvm jvm = new SimulatedJvm(EnumSet.of(NettyTransport.EPOLL, NettyTransport.IO_URING));
		jvm.initialize(NettyTransport.EPOLL);
		assertThatExceptionOfType(InvalidTuningPropertyException.class)
			.isThrownBy(() -> new TransportSelector(jvm).select(Transport.NIO))
			.satisfies((ex) -> {
				assertThat(ex.getReason()).contains("Lettuce already uses epoll");
				assertThat(ex.getAction()).contains("-Dio.lettuce.core.epoll=false");
			});
	}

	/**
	 * A JVM whose transport providers, like Lettuce's, read their switch once, on first
	 * use.
	 */
	private static final class SimulatedJvm implements TransportSelector.Platform {

		private final Set<NettyTransport> nativeTransports;

		private final Map<NettyTransport, Boolean> initialized = new HashMap<>();

		private final Map<String, String> properties = new HashMap<>();

		SimulatedJvm(Set<NettyTransport> nativeTransports) {
			this.nativeTransports = nativeTransports;
		}

		@Override
		public boolean hasClasses(NettyTransport transport) {
			return transport == NettyTransport.NIO || this.nativeTransports.contains(transport);
		}

		@Override
		public boolean isAvailable(NettyTransport transport) {
			return transport == NettyTransport.NIO || initialize(transport);
		}

		boolean initialize(NettyTransport transport) {
			return this.initialized.computeIfAbsent(transport, (key) -> this.nativeTransports.contains(key)
					&& !"false".equals(this.properties.get(property(key))));
		}

		@Override
		public NettyTransport inUse() {
			for (NettyTransport transport : new NettyTransport[] { NettyTransport.EPOLL, NettyTransport.KQUEUE,
					NettyTransport.IO_URING }) {
				if (isAvailable(transport)) {
					return transport;
				}
			}
			return NettyTransport.NIO;
		}

		@Override
		public String unavailabilityReason(NettyTransport transport) {
			return "simulated";
		}

		@Override
		public @Nullable String getProperty(String key) {
			return this.properties.get(key);
		}

		@Override
		public void setProperty(String key, String value) {
			this.properties.put(key, value);
		}

		private static String property(NettyTransport transport) {
			return switch (transport) {
				case EPOLL -> "io.lettuce.core.epoll";
				case IO_URING -> "io.lettuce.core.iouring";
				case KQUEUE -> "io.lettuce.core.kqueue";
				case NIO -> "none";
			};
		}

	}

}
