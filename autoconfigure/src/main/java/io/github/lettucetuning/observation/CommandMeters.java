package io.github.lettucetuning.observation;

import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.lettuce.core.resource.NettyCustomizer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.netty.channel.Channel;
import org.jspecify.annotations.Nullable;

/**
 * Records the {@code lettuce} timer that Spring Boot's {@code lettuce} observation
 * records, with the same name, tags and values, without an observation per command: a
 * handler in every channel's pipeline notes when each command is written and records it
 * once its reply has been read (see {@code CommandMetersHandler}). Its timers are looked
 * up once per server address and command type; a command that completes normally
 * allocates nothing.
 * <p>
 * It also exports {@code lettuce.active}, the observation's long-task timer, without a
 * sample per command: its values are computed when the registry is read, from the
 * commands in flight on every channel (see {@code ActiveCommands}).
 *
 * @since 0.1.0
 */
// Works around Boot timing every command through an Observation:
// docs/upstream.md#boots-lettuce-timer-without-an-observation-per-command
public final class CommandMeters implements NettyCustomizer {

	static final String HANDLER_NAME = "lettuceTuningCommandMeters";

	private final MeterRegistry registry;

	private final Tags commonTags;

	private final boolean longTaskTimer;

	private final ConcurrentMap<Tags, EndpointTimers> endpoints = new ConcurrentHashMap<>();

	/**
	 * Record command meters in a registry.
	 * @param registry the registry, the one Spring Boot's observation handler records in
	 * @param commonKeyValues the key values Spring Boot adds to every observation
	 * ({@code management.observations.key-values})
	 */
	public CommandMeters(MeterRegistry registry, Map<String, String> commonKeyValues) {
		this(registry, commonKeyValues, true);
	}

	/**
	 * Record command meters in a registry.
	 * @param registry the registry, the one Spring Boot's observation handler records in
	 * @param commonKeyValues the key values Spring Boot adds to every observation
	 * ({@code management.observations.key-values})
	 * @param longTaskTimer whether to export {@code lettuce.active}, as Boot's meter
	 * handler does unless {@code management.metrics.observations.ignored-meters} lists
	 * {@code long-task-timer}
	 * @since 0.1.0
	 */
	public CommandMeters(MeterRegistry registry, Map<String, String> commonKeyValues, boolean longTaskTimer) {
		this.registry = registry;
		this.longTaskTimer = longTaskTimer;
		Tags tags = Tags.empty();
		for (Map.Entry<String, String> keyValue : commonKeyValues.entrySet()) {
			tags = tags.and(keyValue.getKey(), keyValue.getValue());
		}
		this.commonTags = tags;
	}

	@Override
	public void afterChannelInitialized(Channel channel) {
		channel.pipeline().addLast(HANDLER_NAME, new CommandMetersHandler(this));
	}

	EndpointTimers endpoint(@Nullable SocketAddress remote) {
		return this.endpoints.computeIfAbsent(EndpointTimers.peerTags(remote),
				(peer) -> new EndpointTimers(this.registry, remote, this.commonTags, this.longTaskTimer));
	}

}
