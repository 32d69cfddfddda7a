package io.github.lettucetuning.observation;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * The {@code lettuce} timers of one server address, tagged as Spring Boot's
 * {@code lettuce} observation tags them: Lettuce's low-cardinality key values
 * ({@code db.system}, {@code db.operation} and the peer's address, port and transport),
 * the observation's common key values, and {@code error}, the simple name of the
 * exception a command failed with, or {@code none}.
 * <p>
 * A command of a known type finds its timer in an array slot after the first: no tag
 * sorting and no registry lookup per command. A failed command looks its timer up in the
 * registry, as a failure is rare and its tag is the exception's name.
 */
final class EndpointTimers {

	static final String TIMER_NAME = "lettuce";

	private static final String NO_ERROR = "none";

	private static final int COMMAND_TYPES = CommandType.values().length;

	private final MeterRegistry registry;

	private final Tags tags;

	private final AtomicReferenceArray<Timer> byCommandType = new AtomicReferenceArray<>(COMMAND_TYPES);

	private final ConcurrentMap<ProtocolKeyword, Timer> byOtherKeyword = new ConcurrentHashMap<>();

	private final @Nullable ActiveCommands active;

	private final Tags activeTags;

	private final Set<ProtocolKeyword> activeTypes = ConcurrentHashMap.newKeySet();

	EndpointTimers(MeterRegistry registry, @Nullable SocketAddress remote, Tags commonTags, boolean longTaskTimer) {
		this.registry = registry;
		this.activeTags = peerTags(remote);
		this.tags = this.activeTags.and(commonTags);
		this.active = longTaskTimer ? new ActiveCommands() : null;
	}

	/**
	 * Return the commands of this address in flight, or {@code null} if
	 * {@code lettuce.active} is not recorded.
	 * @return the commands in flight
	 */
	@Nullable ActiveCommands active() {
		return this.active;
	}

	// The key values of Lettuce's DefaultLettuceObservationConvention for the endpoint
	// Lettuce's command handler reports, the channel's remote address.
	static Tags peerTags(@Nullable SocketAddress remote) {
		Tags tags = Tags.of("db.system", "redis");
		if (remote instanceof InetSocketAddress inet) {
			return tags.and("net.sock.peer.addr", inet.getHostString())
				.and("net.sock.peer.port", String.valueOf(inet.getPort()))
				.and("net.transport", "IP.TCP");
		}
		if (remote != null) {
			return tags.and("net.peer.name", remote.toString()).and("net.transport", "Unix");
		}
		return tags;
	}

	void succeeded(ProtocolKeyword type, long nanos) {
		timer(type).record(nanos, TimeUnit.NANOSECONDS);
	}

	void failed(ProtocolKeyword type, String error, long nanos) {
		registerActive(type);
		this.registry.timer(TIMER_NAME, this.tags.and("db.operation", type.toString()).and("error", error))
			.record(nanos, TimeUnit.NANOSECONDS);
	}

	private Timer timer(ProtocolKeyword type) {
		if (type instanceof CommandType commandType) {
			Timer timer = this.byCommandType.get(commandType.ordinal());
			if (timer == null) {
				timer = register(type);
				this.byCommandType.set(commandType.ordinal(), timer);
			}
			return timer;
		}
		return this.byOtherKeyword.computeIfAbsent(type, this::register);
	}

	private Timer register(ProtocolKeyword type) {
		registerActive(type);
		return this.registry.timer(TIMER_NAME, this.tags.and("db.operation", type.toString()).and("error", NO_ERROR));
	}

	// Boot's observation registers lettuce.active for a command type when the first
	// such command starts; this registers it when the first one is recorded.
	private void registerActive(ProtocolKeyword type) {
		ActiveCommands active = this.active;
		if (active != null && this.activeTypes.add(type)) {
			active.register(this.registry, this.activeTags, type);
		}
	}

}
