package io.github.lettucetuning.state;

import java.nio.file.Path;
import java.security.Security;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.observation.CommandObservationPath;
import io.github.lettucetuning.connection.ConnectionMode;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.socket.ClientAddressResolver;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.github.lettucetuning.socket.EffectiveSocketSettings;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.resilience.OutageOptions;
import io.github.lettucetuning.socket.FlushConsolidation;
import io.github.lettucetuning.timeout.WheelTimer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.ExtendedKeepAliveSupport;
import io.lettuce.core.resource.NettyCustomizer;
import io.lettuce.core.resource.Transports;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.DefaultAddressResolverGroup;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Reads the {@link EffectiveConfiguration} from the running client: the connection
 * factory, the client's options (not the properties, which customizers may have
 * overridden), the client resources and the dedicated pool.
 */
final class EffectiveConfigurationReader {

	// Netty's defaults, which Lettuce's own HashedWheelTimer uses.
	private static final Duration NETTY_TICK = Duration.ofMillis(100);

	private static final int NETTY_WHEEL_SIZE = 512;

	private static final Duration JDK_DEFAULT_CACHE_TTL = Duration.ofSeconds(30);

	private final LettuceTuningConnectionFactory factory;

	private final ClientResources resources;

	private final TimerOwner timerOwner;

	private final @Nullable EffectiveSocketSettings socketSettings;

	private final EffectiveConfiguration.@Nullable CommandMeters commandMeters;

	private final Supplier<EffectiveConfiguration.Health> health;

	private final @Nullable OutageGuard guard;

	/**
	 * Create a reader.
	 * @param factory the connection factory
	 * @param resources the client resources
	 * @param timerOwner who created the expiry timer
	 * @param socketSettings the socket settings lettuce-tuning applied, or {@code null}
	 * to read them from the client options
	 * @param health supplies which health indicators are in use
	 * @param guard the outage guard on the connections, or {@code null} if none is
	 * installed
	 * @param commandMeters who records the {@code lettuce} command meters, or
	 * {@code null} when nothing decided it
	 */
	EffectiveConfigurationReader(LettuceTuningConnectionFactory factory, ClientResources resources,
			TimerOwner timerOwner, @Nullable EffectiveSocketSettings socketSettings,
			Supplier<EffectiveConfiguration.Health> health, @Nullable OutageGuard guard,
			@Nullable CommandObservationPath commandMeters) {
		this.factory = factory;
		this.resources = resources;
		this.timerOwner = timerOwner;
		this.socketSettings = socketSettings;
		this.health = health;
		this.guard = guard;
		this.commandMeters = (commandMeters != null)
				? new EffectiveConfiguration.CommandMeters(
						commandMeters.path().name().toLowerCase(Locale.ROOT).replace('_', '-'), commandMeters.reason())
				: null;
	}

	/**
	 * Read the configuration in effect now.
	 * @return the effective configuration
	 */
	EffectiveConfiguration read() {
		ClientOptions options = this.factory.getRequiredNativeClient().getOptions();
		EffectiveConfiguration.Pool pool = PoolSnapshot.settings(this.factory.getDedicatedConnectionProvider());
		return new EffectiveConfiguration(connections(), commands(options), threads(), timer(), socket(options),
				cluster(options), pool, this.health.get(), resilience(options), this.commandMeters);
	}

	private EffectiveConfiguration.@Nullable Resilience resilience(ClientOptions options) {
		OutageGuard guard = this.guard;
		if (guard == null) {
			return null;
		}
		OutageOptions outage = guard.options();
		return new EffectiveConfiguration.Resilience(outage.failFast(), outage.grace(), outage.stallDetection(),
				outage.stallTimeout(), options.getRequestQueueSize());
	}

	private EffectiveConfiguration.Connections connections() {
		boolean shared = this.factory.getShareNativeConnection();
		String selection = (this.factory.getMode() == ConnectionMode.MULTI)
				? id(this.factory.getSelectionPolicy().name()) : null;
		return new EffectiveConfiguration.Connections(id(this.factory.getMode().name()),
				shared ? this.factory.getSharedConnectionCount() : 0, selection, shared,
				this.factory.getEagerInitialization());
	}

	private EffectiveConfiguration.Commands commands(ClientOptions options) {
		return new EffectiveConfiguration.Commands(this.factory.getClientConfiguration().getCommandTimeout(),
				options.getTimeoutOptions().isTimeoutCommands());
	}

	private EffectiveConfiguration.Threads threads() {
		return new EffectiveConfiguration.Threads(this.resources.ioThreadPoolSize(),
				this.resources.computationThreadPoolSize());
	}

	private EffectiveConfiguration.Timer timer() {
		Timer timer = this.resources.timer();
		String owner = this.timerOwner.id();
		if (timer instanceof WheelTimer wheel) {
			return new EffectiveConfiguration.Timer("wheel", wheel.tickDuration(), wheel.options().wheelSize(),
					wheel.options().maxPendingTimeouts(), owner);
		}
		if (timer instanceof HashedWheelTimer) {
			boolean lettuces = this.timerOwner == TimerOwner.LETTUCE;
			return new EffectiveConfiguration.Timer("netty", lettuces ? NETTY_TICK : null,
					lettuces ? NETTY_WHEEL_SIZE : null, null, owner);
		}
		return new EffectiveConfiguration.Timer(timer.getClass().getName(), null, null, null, owner);
	}

	// Keep-alive and TCP_USER_TIMEOUT as the built options hold them: a customizer of the
	// user's may have changed either after lettuce-tuning's settings were resolved.
	private EffectiveConfiguration.Socket socket(ClientOptions options) {
		SocketOptions socketOptions = options.getSocketOptions();
		String transport = (this.socketSettings != null) ? this.socketSettings.transport().displayName() : transport();
		boolean nativeTransport = !"nio".equals(transport);
		SocketOptions.KeepAliveOptions keepAlive = socketOptions.getKeepAlive();
		boolean extended = socketOptions.isKeepAlive() && ExtendedKeepAliveSupport.isSupported();
		EffectiveConfiguration.KeepAlive keepAliveSettings = new EffectiveConfiguration.KeepAlive(
				socketOptions.isKeepAlive(), extended, extended ? keepAlive.getIdle() : null,
				extended ? keepAlive.getInterval() : null, extended ? keepAlive.getCount() : null);
		boolean tcpUserTimeoutPossible = "epoll".equals(transport) || "io_uring".equals(transport);
		boolean tcpUserTimeout = socketOptions.isEnableTcpUserTimeout() && tcpUserTimeoutPossible;
		String inactiveReason = (this.socketSettings != null) ? this.socketSettings.inactiveReason()
				: (socketOptions.isEnableTcpUserTimeout() && !tcpUserTimeoutPossible)
						? "TCP_USER_TIMEOUT needs the epoll or io_uring transport, not " + transport : null;
		return new EffectiveConfiguration.Socket(transport, nativeTransport, socketOptions.getConnectTimeout(),
				keepAliveSettings,
				new EffectiveConfiguration.TcpUserTimeout(tcpUserTimeout,
						tcpUserTimeout ? socketOptions.getTcpUserTimeout().getTcpUserTimeout() : null),
				inactiveReason, flushConsolidation(), dns(), applicationNettyCustomizer());
	}

	// Read from the resources: a customizer of the user's may have set another resolver.
	private EffectiveConfiguration.Dns dns() {
		AddressResolverGroup<?> group = this.resources.addressResolverGroup();
		ClientAddressResolver ours = ClientAddressResolver.of(group);
		if (ours != null) {
			Path file = ours.hostsFile().file();
			return new EffectiveConfiguration.Dns("lettuce-tuning", ours.maxTtl(),
					(file != null) ? file.toString() : "platform");
		}
		if (group == DefaultClientResources.DEFAULT_ADDRESS_RESOLVER_GROUP) {
			return new EffectiveConfiguration.Dns("lettuce", null, "platform");
		}
		if (group instanceof DefaultAddressResolverGroup) {
			return new EffectiveConfiguration.Dns("jdk", jdkCacheTtl(), null);
		}
		return new EffectiveConfiguration.Dns(group.getClass().getName(), null, null);
	}

	// The JDK keeps positive answers for networkaddress.cache.ttl seconds, 30 without a
	// security manager; negative means forever, shown as unknown.
	private static @Nullable Duration jdkCacheTtl() {
		String ttl = Security.getProperty("networkaddress.cache.ttl");
		if (ttl == null) {
			return JDK_DEFAULT_CACHE_TTL;
		}
		try {
			long seconds = Long.parseLong(ttl.trim());
			return (seconds >= 0) ? Duration.ofSeconds(seconds) : null;
		}
		catch (NumberFormatException ex) {
			return JDK_DEFAULT_CACHE_TTL;
		}
	}

	// Read from the resources rather than the properties: a customizer of the user's may
	// have replaced it.
	private @Nullable Integer flushConsolidation() {
		FlushConsolidation consolidation = CompositeNettyCustomizer.find(this.resources.nettyCustomizer(),
				FlushConsolidation.class);
		return (consolidation != null) ? consolidation.maxFlushes() : null;
	}

	private @Nullable String applicationNettyCustomizer() {
		NettyCustomizer application = CompositeNettyCustomizer.application(this.resources.nettyCustomizer());
		return (application != null) ? application.getClass().getName() : null;
	}

	// Lettuce picks its transport once per JVM; the channel class names it.
	static String transport() {
		String channel = Transports.socketChannelClass().getSimpleName().toLowerCase(Locale.ROOT);
		if (channel.startsWith("epoll")) {
			return "epoll";
		}
		if (channel.startsWith("iouring") || channel.startsWith("io_uring")) {
			return "io_uring";
		}
		if (channel.startsWith("kqueue")) {
			return "kqueue";
		}
		return "nio";
	}

	private EffectiveConfiguration.@Nullable Cluster cluster(ClientOptions options) {
		if (!this.factory.isClusterAware() || !(options instanceof ClusterClientOptions clusterOptions)) {
			return null;
		}
		ClusterTopologyRefreshOptions refresh = clusterOptions.getTopologyRefreshOptions();
		List<String> triggers = refresh.getAdaptiveRefreshTriggers()
			.stream()
			.map((trigger) -> id(trigger.name()))
			.sorted()
			.toList();
		return new EffectiveConfiguration.Cluster(refresh.isPeriodicRefreshEnabled(), refresh.getRefreshPeriod(),
				triggers, refresh.getAdaptiveRefreshTimeout(), refresh.useDynamicRefreshSources(),
				refresh.isCloseStaleConnections(), clusterOptions.isValidateClusterNodeMembership(),
				clusterOptions.getMaxRedirects());
	}

	static String id(String name) {
		return name.toLowerCase(Locale.ROOT).replace('_', '-');
	}

}
