package io.github.lettucetuning.state;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.credentials.CredentialsTracker;
import io.github.lettucetuning.eventloop.BlockedEventLoop;
import io.github.lettucetuning.eventloop.EventLoopWatchdog;
import io.github.lettucetuning.nearcache.NearCaches;
import io.github.lettucetuning.observation.CommandObservationPath;
import io.github.lettucetuning.resilience.MaintenanceNotifications;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.resilience.RoleChangeGuard;
import io.github.lettucetuning.resilience.SubscriptionWatch;
import io.github.lettucetuning.socket.CompositeNettyCustomizer;
import io.github.lettucetuning.socket.EffectiveSocketSettings;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.resource.ClientResources;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The one reader of the running client: the connection factory, the client resources as
 * built, the outage guard, the watchdog over the event loops, the expiry timer, the
 * credentials tracker, the client events, the socket settings and the near cache. The
 * {@code redis} health, the {@code lettuce.tuning.*} meters and the {@code lettuce}
 * endpoint take what they show from its {@link ClientState} and its
 * {@link EffectiveConfiguration}, and from nothing else of the client, so they cannot
 * disagree about a fact.
 * <p>
 * Each {@link #read()} takes a new snapshot; nothing is cached and nothing is recorded
 * per command.
 *
 * @since 0.1.0
 */
public final class ClientStateReader {

	private final LettuceTuningConnectionFactory factory;

	private final Supplier<ClientResources> resources;

	private final @Nullable OutageGuard guard;

	private final @Nullable EventLoopWatchdog watchdog;

	private final @Nullable CredentialsTracker credentials;

	private final @Nullable ClientEventRecorder recorder;

	private final @Nullable EffectiveSocketSettings socketSettings;

	private final @Nullable CommandObservationPath commandMeters;

	private final @Nullable TimerOwner timerOwner;

	private final Supplier<EffectiveConfiguration.Health> health;

	private final Supplier<@Nullable ServerIdentity> server;

	private final @Nullable NearCaches nearCaches;

	private ClientStateReader(Builder builder) {
		this.factory = builder.factory;
		ClientResources resources = builder.resources;
		LettuceTuningConnectionFactory factory = builder.factory;
		this.resources = (resources != null) ? () -> resources : () -> factory.getRequiredNativeClient().getResources();
		this.guard = builder.guard;
		this.watchdog = builder.watchdog;
		this.credentials = builder.credentials;
		this.recorder = builder.recorder;
		this.socketSettings = builder.socketSettings;
		this.commandMeters = builder.commandMeters;
		this.timerOwner = builder.timerOwner;
		this.health = builder.health;
		this.server = builder.server;
		this.nearCaches = builder.nearCaches;
	}

	/**
	 * Return a reader of what the connection factory alone tells: its connections, pool,
	 * subscriptions and role changes.
	 * @param factory the connection factory
	 * @return the reader
	 */
	public static ClientStateReader of(LettuceTuningConnectionFactory factory) {
		return builder(factory).build();
	}

	/**
	 * Return a builder of a reader over the given factory.
	 * @param factory the connection factory
	 * @return the builder
	 */
	public static Builder builder(LettuceTuningConnectionFactory factory) {
		return new Builder(factory);
	}

	/**
	 * Read what the client is doing now.
	 * @return the state
	 */
	public ClientState read() {
		return read(false);
	}

	/**
	 * Read what the client is doing now, after waiting at most one watchdog threshold and
	 * a half for a loop that has been quiet for a while to be found blocked or to run
	 * (see {@link EventLoopWatchdog#blockedNowOrSoon()}). For a caller that has just
	 * waited in vain for Redis, so that a spell that started just before is not missed.
	 * @return the state
	 */
	public ClientState readSoon() {
		return read(true);
	}

	/**
	 * Read the configuration in effect now, from the client rather than the properties.
	 * @return the effective configuration
	 */
	public EffectiveConfiguration configuration() {
		ClientResources resources = this.resources.get();
		OutageGuard guard = installedGuard(resources);
		CommandObservationPath commandMeters = (this.commandMeters != null) ? this.commandMeters.inUse(resources)
				: null;
		return new EffectiveConfigurationReader(this.factory, resources, timerOwner(resources.timer()),
				this.socketSettings, this.health, guard, commandMeters)
			.read();
	}

	/**
	 * Return the server as the {@code redis} health check last found it, without a round
	 * trip.
	 * @return the server, or {@code null} before a check has read it or when the check is
	 * not lettuce-tuning's
	 */
	public @Nullable ServerIdentity server() {
		return this.server.get();
	}

	/**
	 * Return whether a watchdog over the event loops was given: what the blocked-loop
	 * meters are bound for.
	 * @return whether a watchdog was given
	 */
	public boolean watchesEventLoops() {
		return this.watchdog != null;
	}

	/**
	 * Read the near cache alone, as {@link #read()} would, without reading the client:
	 * for the near-cache meters, which read it on every scrape.
	 * @return the near cache, or {@code null} when it is off
	 */
	public ClientState.@Nullable NearCache readNearCache() {
		return nearCache();
	}

	private ClientState read(boolean soon) {
		ClientResources resources = this.resources.get();
		OutageGuard guard = installedGuard(resources);
		ConnectionSnapshot connections = ConnectionSnapshot.of(this.factory);
		String mode = connections.mode().name().toLowerCase(Locale.ROOT);
		return new ClientState(mode, this.factory.getClientConfiguration().getCommandTimeout(),
				connections(connections), PoolSnapshot.of(this.factory), TimerSnapshot.of(resources.timer()), events(),
				topology(), outages(guard), eventLoops(guard, soon), subscriptions(this.factory.getSubscriptionWatch()),
				credentials(), roleChanges(this.factory.getRoleChangeGuard()), nearCache());
	}

	// The guard is on the connections only if the client resources carry it: not when
	// every option of it is off, nor when the application builds its own resources. A
	// guard that is not on them has seen nothing.
	private @Nullable OutageGuard installedGuard(ClientResources resources) {
		OutageGuard guard = this.guard;
		return (guard != null && CompositeNettyCustomizer.includes(resources.nettyCustomizer(), guard)) ? guard : null;
	}

	private TimerOwner timerOwner(Timer timer) {
		if (this.timerOwner != null) {
			return this.timerOwner;
		}
		return (timer instanceof HashedWheelTimer) ? TimerOwner.LETTUCE : TimerOwner.APPLICATION;
	}

	private ClientState.Connections connections(ConnectionSnapshot connections) {
		return new ClientState.Connections(connections.size(), connections.open(), connections.disconnected(),
				connections.unopened(), inFlight(this.factory.getSharedInFlight()),
				inFlight(this.factory.getReactiveInFlight()));
	}

	// Pooled mode shares no connection, so there is nothing in flight to list.
	private List<Integer> inFlight(int[] counts) {
		return this.factory.getShareNativeConnection() ? Arrays.stream(counts).boxed().toList() : List.of();
	}

	private ClientState.@Nullable Events events() {
		ClientEventRecorder recorder = this.recorder;
		return (recorder != null) ? new ClientState.Events(recorder.reconnectAttempts(), recorder.reconnectFailures(),
				recorder.commandTimeouts(), recorder.movedRedirections(), recorder.askRedirections()) : null;
	}

	private ClientState.@Nullable Topology topology() {
		ClientEventRecorder recorder = this.recorder;
		if (recorder == null || !this.factory.isClusterAware()) {
			return null;
		}
		Map<String, Long> triggers = new LinkedHashMap<>();
		for (RefreshTrigger trigger : RefreshTrigger.values()) {
			triggers.put(EffectiveConfigurationReader.id(trigger.name()), recorder.refreshTriggers(trigger));
		}
		return new ClientState.Topology(recorder.topologyChanges(), recorder.lastTopologyChange(), triggers);
	}

	private static ClientState.@Nullable Outages outages(@Nullable OutageGuard guard) {
		if (guard == null) {
			return null;
		}
		List<ClientState.Outage> unreachable = guard.outages()
			.stream()
			.map((outage) -> new ClientState.Outage(outage.server(), outage.since(), outage.duration(),
					outage.rejection(), outage.tls()))
			.toList();
		MaintenanceNotifications maintenance = guard.maintenanceNotifications();
		return new ClientState.Outages(guard.waitingCommands(), unreachable, guard.connectionsMoved(),
				new ClientState.Maintenance(maintenance.received(), maintenance.connectionsInWindow(),
						maintenance.relaxedCommands(), maintenance.refusal()));
	}

	// The watchdog learns of the loops from the guard's handler: without the guard on the
	// connections it watches nothing.
	private ClientState.@Nullable EventLoops eventLoops(@Nullable OutageGuard guard, boolean soon) {
		EventLoopWatchdog watchdog = this.watchdog;
		if (guard == null || watchdog == null) {
			return null;
		}
		List<BlockedEventLoop> blocked = soon ? blockedNowOrSoon(watchdog) : watchdog.blockedNow();
		BlockedEventLoop last = watchdog.lastBlocked();
		return new ClientState.EventLoops(watchdog.threshold(), watchdog.blockedSpells(),
				blocked.stream().map(ClientStateReader::blockedLoop).toList(),
				(last != null) ? blockedLoop(last) : null, watchdog.pauses());
	}

	private static List<BlockedEventLoop> blockedNowOrSoon(EventLoopWatchdog watchdog) {
		try {
			return watchdog.blockedNowOrSoon();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return watchdog.blockedNow();
		}
	}

	private static ClientState.BlockedLoop blockedLoop(BlockedEventLoop loop) {
		return new ClientState.BlockedLoop(loop.thread(), loop.since(), loop.duration(), loop.waitingCommands(),
				loop.queuedTasks(), loop.blockedAt());
	}

	private static ClientState.Subscriptions subscriptions(SubscriptionWatch watch) {
		List<ClientState.Unrestored> unrestored = watch.unrestored()
			.stream()
			.map((lost) -> new ClientState.Unrestored(lost.subscription(), lost.server(), lost.since()))
			.toList();
		return new ClientState.Subscriptions(watch.connections(), watch.lost(), unrestored);
	}

	private ClientState.@Nullable Credentials credentials() {
		CredentialsTracker tracker = this.credentials;
		if (tracker == null) {
			return null;
		}
		String reauthenticate = this.factory.getClientConfiguration()
			.getClientOptions()
			.map(ClientOptions::getReauthenticateBehaviour)
			.orElse(ClientOptions.DEFAULT_REAUTHENTICATE_BEHAVIOUR)
			.name();
		ClientEventRecorder recorder = this.recorder;
		return new ClientState.Credentials(tracker.user(), tracker.source(), tracker.reason(), tracker.streaming(),
				reauthenticate, tracker.issuedAt(), (recorder != null) ? recorder.reauthentications() : null,
				(recorder != null) ? recorder.reauthenticationFailures() : null,
				(recorder != null) ? recorder.lastReauthentication() : null,
				(recorder != null) ? recorder.lastReauthenticationFailure() : null);
	}

	private static ClientState.@Nullable RoleChanges roleChanges(@Nullable RoleChangeGuard guard) {
		if (guard == null) {
			return null;
		}
		RoleChangeGuard.RoleChange last = guard.lastChange();
		ClientState.RoleChange change = (last != null) ? new ClientState.RoleChange(last.at(), last.server(),
				last.endpoint(), last.action(), last.failedCommands()) : null;
		return new ClientState.RoleChanges(guard.reconnects(), guard.minInterval(), change);
	}

	private ClientState.@Nullable NearCache nearCache() {
		NearCaches nearCaches = this.nearCaches;
		return (nearCaches != null) ? NearCacheSnapshot.of(nearCaches) : null;
	}

	/**
	 * Builds a {@link ClientStateReader}; every part but the factory is optional.
	 */
	public static final class Builder {

		private final LettuceTuningConnectionFactory factory;

		private @Nullable ClientResources resources;

		private @Nullable OutageGuard guard;

		private @Nullable EventLoopWatchdog watchdog;

		private @Nullable CredentialsTracker credentials;

		private @Nullable ClientEventRecorder recorder;

		private @Nullable EffectiveSocketSettings socketSettings;

		private @Nullable CommandObservationPath commandMeters;

		private @Nullable TimerOwner timerOwner;

		private Supplier<EffectiveConfiguration.Health> health = () -> new EffectiveConfiguration.Health(false, null,
				false);

		private Supplier<@Nullable ServerIdentity> server = () -> null;

		private @Nullable NearCaches nearCaches;

		private Builder(LettuceTuningConnectionFactory factory) {
			Assert.notNull(factory, "'factory' must not be null");
			this.factory = factory;
		}

		/**
		 * Set the client resources as built. Without them the native client's are read.
		 * @param resources the client resources
		 * @return {@code this}
		 */
		public Builder resources(@Nullable ClientResources resources) {
			this.resources = resources;
			return this;
		}

		/**
		 * Set the outage guard; it counts only if the client resources carry it.
		 * @param guard the outage guard, or {@code null}
		 * @return {@code this}
		 */
		public Builder outageGuard(@Nullable OutageGuard guard) {
			this.guard = guard;
			return this;
		}

		/**
		 * Set the watchdog over the event loops.
		 * @param watchdog the watchdog, or {@code null}
		 * @return {@code this}
		 */
		public Builder watchdog(@Nullable EventLoopWatchdog watchdog) {
			this.watchdog = watchdog;
			return this;
		}

		/**
		 * Set the tracker of the client's credentials.
		 * @param credentials the tracker, or {@code null}
		 * @return {@code this}
		 */
		public Builder credentials(@Nullable CredentialsTracker credentials) {
			this.credentials = credentials;
			return this;
		}

		/**
		 * Set the recorder of client events.
		 * @param recorder the recorder, or {@code null}
		 * @return {@code this}
		 */
		public Builder events(@Nullable ClientEventRecorder recorder) {
			this.recorder = recorder;
			return this;
		}

		/**
		 * Set the socket settings lettuce-tuning applied.
		 * @param socketSettings the settings, or {@code null} to read them from the
		 * client options
		 * @return {@code this}
		 */
		public Builder socketSettings(@Nullable EffectiveSocketSettings socketSettings) {
			this.socketSettings = socketSettings;
			return this;
		}

		/**
		 * Set who was decided to record the {@code lettuce} command meters; the client
		 * resources as built have the last word.
		 * @param commandMeters the decision, or {@code null} when nothing decided it
		 * @return {@code this}
		 */
		public Builder commandMeters(@Nullable CommandObservationPath commandMeters) {
			this.commandMeters = commandMeters;
			return this;
		}

		/**
		 * Set who created the expiry timer. Without it, Netty's timer is taken for
		 * Lettuce's and any other for the application's.
		 * @param timerOwner the owner, or {@code null}
		 * @return {@code this}
		 */
		public Builder timerOwner(@Nullable TimerOwner timerOwner) {
			this.timerOwner = timerOwner;
			return this;
		}

		/**
		 * Set what supplies which health indicators are in use.
		 * @param health the supplier
		 * @return {@code this}
		 */
		public Builder health(Supplier<EffectiveConfiguration.Health> health) {
			Assert.notNull(health, "'health' must not be null");
			this.health = health;
			return this;
		}

		/**
		 * Set what supplies the server as last seen, without a round trip.
		 * @param server the supplier; it may supply {@code null}
		 * @return {@code this}
		 */
		public Builder server(Supplier<@Nullable ServerIdentity> server) {
			Assert.notNull(server, "'server' must not be null");
			this.server = server;
			return this;
		}

		/**
		 * Set the near cache of Spring Boot's RedisCacheManager.
		 * @param nearCaches the near cache, or {@code null} when it is off
		 * @return {@code this}
		 */
		public Builder nearCaches(@Nullable NearCaches nearCaches) {
			this.nearCaches = nearCaches;
			return this;
		}

		/**
		 * Build the reader.
		 * @return the reader
		 */
		public ClientStateReader build() {
			return new ClientStateReader(this);
		}

	}

}
