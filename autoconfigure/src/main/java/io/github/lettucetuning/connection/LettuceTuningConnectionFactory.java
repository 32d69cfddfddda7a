package io.github.lettucetuning.connection;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.github.lettucetuning.eventloop.BlockingCallGuard;
import io.github.lettucetuning.eventloop.EventLoopThread;
import io.github.lettucetuning.resilience.MaintenanceNotifications;
import io.github.lettucetuning.resilience.RoleChangeGuard;
import io.github.lettucetuning.resilience.SubscriptionWatch;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.ClusterCommandExecutor;
import org.springframework.data.redis.connection.ClusterTopologyProvider;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection.PipeliningFlushPolicy;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionProvider;

/**
 * A {@link LettuceConnectionFactory} whose plain commands go over a
 * {@link SharedConnectionSet} opened straight from the client (one member in
 * {@link ConnectionMode#SHARED shared} mode, several in {@link ConnectionMode#MULTI
 * multi} mode), picked without a lock, while dedicated work borrows from a separate
 * provider, usually a bounded {@link DedicatedConnectionPool}. In
 * {@link ConnectionMode#POOLED pooled} mode every operation borrows a dedicated
 * connection.
 * <p>
 * Where it departs from Spring Data's contract for {@link LettuceConnectionFactory}: in
 * shared and multi mode a shared connection found closed is replaced even with
 * {@link #setValidateConnection(boolean) validation} off (Spring Data replaces it only
 * when validating), and in multi mode {@link #getSharedConnection()} hands out a
 * different member of the set on each call, so two operations of one thread need not
 * share a native connection. See
 * {@code docs/connection-modes.md#departures-from-spring-datas-contract}.
 *
 * @since 0.1.0
 */
// Works around Spring Data locking on every getConnection() and holding one shared
// connection in the pool:
// docs/upstream.md#shared-connections-without-spring-datas-lock
public class LettuceTuningConnectionFactory extends LettuceConnectionFactory {

	private final ConnectionSharing sharing;

	private @Nullable DedicatedConnectionProviderFactory dedicatedConnections;

	private boolean prewarmDedicatedConnections;

	private PipeliningFlushPolicy pipeliningFlushPolicy = PipeliningFlushPolicy.flushEachCommand();

	private SubscriptionWatch subscriptionWatch = new SubscriptionWatch();

	private boolean strictBlockingCallGuard;

	private @Nullable ServingLoops servingLoops;

	private @Nullable RoleChangeGuard roleChangeGuard;

	private volatile @Nullable SharedConnectionSet imperativeConnections;

	private volatile @Nullable SharedConnectionSet reactiveConnections;

	private volatile @Nullable LettuceConnectionProvider imperativeDedicated;

	// Holds the command exception listener, so that operations without least-in-flight
	// counting share one instance.
	private volatile @Nullable ConnectionHooks listenerHooks;

	private @Nullable MaintenanceNotifications maintenanceNotifications;

	/**
	 * Create a factory for the given configuration.
	 * @param configuration where Redis is: standalone, Sentinel, cluster or static
	 * master/replica
	 * @param clientConfiguration how to connect
	 * @param sharing how plain commands are spread over connections
	 * @return the factory
	 */
	public static LettuceTuningConnectionFactory of(RedisConfiguration configuration,
			LettuceClientConfiguration clientConfiguration, ConnectionSharing sharing) {
		if (configuration instanceof RedisStandaloneConfiguration standalone) {
			return new LettuceTuningConnectionFactory(standalone, clientConfiguration, sharing);
		}
		if (configuration instanceof RedisSentinelConfiguration || configuration instanceof RedisClusterConfiguration
				|| configuration instanceof RedisStaticMasterReplicaConfiguration) {
			return new LettuceTuningConnectionFactory(configuration, clientConfiguration, sharing);
		}
		throw new IllegalArgumentException("Unsupported Redis configuration " + configuration.getClass().getName());
	}

	// Spring Data's typed standalone constructor is the one that also makes the
	// configuration what getStandaloneConfiguration() reports and setHostName() changes;
	// its Sentinel and cluster constructors do what the general one does.
	private LettuceTuningConnectionFactory(RedisStandaloneConfiguration configuration,
			LettuceClientConfiguration clientConfiguration, ConnectionSharing sharing) {
		super(configuration, clientConfiguration);
		this.sharing = sharing;
		setShareNativeConnection(sharing.sharesNativeConnection());
	}

	private LettuceTuningConnectionFactory(RedisConfiguration configuration,
			LettuceClientConfiguration clientConfiguration, ConnectionSharing sharing) {
		super(configuration, clientConfiguration);
		this.sharing = sharing;
		setShareNativeConnection(sharing.sharesNativeConnection());
	}

	/**
	 * Set what provides dedicated connections. Without one, each dedicated connection is
	 * opened for its use and closed afterwards.
	 * @param dedicatedConnections the factory of the dedicated-connection provider
	 */
	public void setDedicatedConnections(DedicatedConnectionProviderFactory dedicatedConnections) {
		this.dedicatedConnections = dedicatedConnections;
	}

	/**
	 * Set whether to open the dedicated pool's minimum of idle connections at start.
	 * @param prewarm whether to prewarm the pool
	 */
	public void setPrewarmDedicatedConnections(boolean prewarm) {
		this.prewarmDedicatedConnections = prewarm;
	}

	/**
	 * Set a listener told about each exception a command of the imperative API raises,
	 * before Spring translates it, e.g. to count command timeouts. It runs on the calling
	 * thread and only when a command fails; connections created afterwards report to it.
	 * @param listener the listener, or {@code null} for none
	 */
	public void setCommandExceptionListener(@Nullable Consumer<? super Exception> listener) {
		this.listenerHooks = (listener != null) ? new ConnectionHooks(null, null, listener) : null;
	}

	/**
	 * Set what follows the Pub/Sub connections of subscriptions, to report those that a
	 * reconnect did not restore. Subscriptions opened afterwards report to it.
	 * @param subscriptionWatch the watch
	 */
	public void setSubscriptionWatch(SubscriptionWatch subscriptionWatch) {
		this.subscriptionWatch = subscriptionWatch;
	}

	/**
	 * Return what follows the Pub/Sub connections of subscriptions.
	 * @return the subscription watch
	 */
	public SubscriptionWatch getSubscriptionWatch() {
		return this.subscriptionWatch;
	}

	/**
	 * Set what follows a primary demoted in place on this factory's connections, for the
	 * health details and the endpoint.
	 * @param roleChangeGuard the guard, or {@code null} if the connections have none
	 */
	public void setRoleChangeGuard(@Nullable RoleChangeGuard roleChangeGuard) {
		this.roleChangeGuard = roleChangeGuard;
	}

	/**
	 * Return what follows a primary demoted in place on this factory's connections.
	 * @return the guard, or {@code null} if the connections have none
	 */
	public @Nullable RoleChangeGuard getRoleChangeGuard() {
		return this.roleChangeGuard;
	}

	/**
	 * Set whether every synchronous call made on one of the client's event loops is
	 * refused, whichever loop serves its connection. Off, only a call whose command would
	 * go out through the calling loop is refused, since it could never complete
	 * ({@link BlockingCallGuard}).
	 * @param strict whether to refuse every synchronous call on an event loop
	 */
	public void setStrictBlockingCallGuard(boolean strict) {
		this.strictBlockingCallGuard = strict;
	}

	/**
	 * Set what knows the event loop serving each connection, so that a synchronous call
	 * made on an event loop is given a shared connection that another loop serves, where
	 * the set has one.
	 * @param servingLoops the event loops of the client's connections
	 */
	public void setServingLoops(ServingLoops servingLoops) {
		this.servingLoops = servingLoops;
	}

	/**
	 * Set what tells the client to stop asking for maintenance notifications once a
	 * server refused them. The client created at start, and any created later, follows
	 * it; a Sentinel-defined client keeps asking.
	 * @param maintenanceNotifications the outage guard's maintenance notifications
	 */
	public void setMaintenanceNotifications(MaintenanceNotifications maintenanceNotifications) {
		this.maintenanceNotifications = maintenanceNotifications;
	}

	@Override
	public void setPipeliningFlushPolicy(PipeliningFlushPolicy pipeliningFlushPolicy) {
		super.setPipeliningFlushPolicy(pipeliningFlushPolicy);
		this.pipeliningFlushPolicy = pipeliningFlushPolicy;
	}

	/**
	 * Return the connection mode.
	 * @return the mode
	 */
	public ConnectionMode getMode() {
		return this.sharing.mode();
	}

	/**
	 * Return the policy that picks a shared connection.
	 * @return the selection policy
	 */
	public SelectionPolicy getSelectionPolicy() {
		return this.sharing.selectionPolicy();
	}

	/**
	 * Return the configured number of shared connections of the imperative API.
	 * @return the size of the shared connection set
	 */
	public int getSharedConnectionCount() {
		return this.sharing.connections();
	}

	/**
	 * Return the shared connections of the imperative API opened so far.
	 * @return the open shared connections
	 */
	public List<StatefulConnection<?, ?>> getSharedConnections() {
		SharedConnectionSet set = this.imperativeConnections;
		return (set != null) ? set.connections() : List.of();
	}

	/**
	 * Return the shared connections of the reactive API opened so far.
	 * @return the open shared reactive connections
	 */
	public List<StatefulConnection<?, ?>> getSharedReactiveConnections() {
		SharedConnectionSet set = this.reactiveConnections;
		return (set != null) ? set.connections() : List.of();
	}

	/**
	 * Return what is in flight on each shared connection of the imperative API:
	 * operations between {@code getConnection()} and {@code close()}.
	 * @return the counts in member order, zeros before start and in pooled mode
	 */
	public int[] getSharedInFlight() {
		return inFlight(this.imperativeConnections);
	}

	/**
	 * Return what is in flight on each shared connection of the reactive API: commands
	 * from their first request until they complete, fail or are cancelled.
	 * @return the counts in member order, zeros before start and in pooled mode
	 */
	public int[] getReactiveInFlight() {
		return inFlight(this.reactiveConnections);
	}

	private int[] inFlight(@Nullable SharedConnectionSet set) {
		return (set != null) ? set.inFlight() : new int[this.sharing.connections()];
	}

	/**
	 * Return the provider of dedicated connections of the imperative API, once started.
	 * @return the dedicated connection provider, or {@code null} before start
	 */
	public @Nullable LettuceConnectionProvider getDedicatedConnectionProvider() {
		return this.imperativeDedicated;
	}

	/**
	 * Return a connection for synchronous commands. On one of the client's event loops, a
	 * command that would go out through that loop is refused when it is sent, since the
	 * caller would wait for a reply that only its own thread can read; in multi mode such
	 * a call is given a shared connection that another loop serves, where there is one.
	 * In {@link #setStrictBlockingCallGuard strict} mode every call on an event loop is
	 * refused here.
	 * @return the connection
	 * @throws InvalidDataAccessApiUsageException if called on an event loop of the client
	 * in strict mode
	 */
	@Override
	public RedisConnection getConnection() {
		EventLoopThread loop = enterSynchronousCall();
		try {
			return super.getConnection();
		}
		finally {
			BlockingCallGuard.exitSynchronousCall(loop);
		}
	}

	/**
	 * Return a cluster connection for synchronous commands, guarded on the client's event
	 * loops as {@link #getConnection()} is.
	 * @return the connection
	 * @throws InvalidDataAccessApiUsageException if called on an event loop of the client
	 * in strict mode
	 */
	@Override
	public RedisClusterConnection getClusterConnection() {
		EventLoopThread loop = enterSynchronousCall();
		try {
			return super.getClusterConnection();
		}
		finally {
			BlockingCallGuard.exitSynchronousCall(loop);
		}
	}

	// Marks an event-loop caller while the connection is looked up (a validating PING or
	// a pool's borrow may write already); the connection marks it again until it closes.
	private @Nullable EventLoopThread enterSynchronousCall() {
		if (!BlockingCallGuard.onEventLoop()) {
			return null;
		}
		if (this.strictBlockingCallGuard) {
			BlockingCallGuard.rejectOnEventLoop();
		}
		BlockingCallGuard.warnOnce();
		return BlockingCallGuard.enterSynchronousCall();
	}

	@Override
	public void start() {
		super.start();
		if (this.prewarmDedicatedConnections && this.dedicatedConnections != null
				&& this.imperativeDedicated instanceof DedicatedConnectionPool pool) {
			// Spring Data borrows dedicated connections as StatefulConnection in a
			// cluster too (LettuceConnection#doGetAsyncDedicatedConnection), so that is
			// the pool to fill.
			pool.prewarm(StatefulConnection.class);
		}
	}

	@Override
	protected LettuceConnectionProvider doCreateConnectionProvider(AbstractRedisClient client, RedisCodec<?, ?> codec) {
		// With Sentinel the client also connects to the Sentinels, which refuse the
		// request whatever the data nodes do (Redis Enterprise's discovery service among
		// them): their refusal says nothing of the master's support.
		if (this.maintenanceNotifications != null && !isRedisSentinelAware()) {
			this.maintenanceNotifications.register(client);
		}
		LettuceConnectionProvider raw = super.doCreateConnectionProvider(client, codec);
		LettuceConnectionProvider connecting = new EventLoopSafeConnections(raw,
				client.getOptions().getSocketOptions().getConnectTimeout());
		boolean imperative = codec instanceof ByteArrayCodec;
		SharedConnectionSet set = new SharedConnectionSet(connecting, this.sharing.connections(),
				this.sharing.selectionPolicy(), this::translate);
		set.setValidateConnection(getValidateConnection());
		LettuceConnectionProvider dedicated = (this.dedicatedConnections != null)
				? this.dedicatedConnections.create(connecting) : raw;
		if (dedicated instanceof DedicatedConnectionPool pool) {
			pool.setValidateConnection(getValidateConnection());
			pool.setTimer(client.getResources().timer());
		}
		if (imperative) {
			this.imperativeConnections = set;
			this.imperativeDedicated = dedicated;
		}
		else {
			this.reactiveConnections = set;
		}
		return dedicated;
	}

	private RuntimeException translate(RuntimeException ex) {
		DataAccessException translated = translateExceptionIfPossible(ex);
		return (translated != null) ? translated : ex;
	}

	@Override
	@SuppressWarnings("unchecked")
	protected @Nullable StatefulRedisConnection<byte[], byte[]> getSharedConnection() {
		SharedConnectionSet set = this.imperativeConnections;
		if (!getShareNativeConnection() || isClusterAware() || set == null) {
			return null;
		}
		return (StatefulRedisConnection<byte[], byte[]>) select(set);
	}

	// On an event loop, a member served by another loop: the calling loop could not read
	// the reply of a command it sends itself.
	private StatefulConnection<?, ?> select(SharedConnectionSet set) {
		ServingLoops servingLoops = this.servingLoops;
		if (servingLoops == null || set.size() == 1 || !BlockingCallGuard.onEventLoop()) {
			return set.select();
		}
		return set.select(servingLoops::servedByCurrentThread);
	}

	@Override
	@SuppressWarnings("unchecked")
	protected @Nullable StatefulRedisClusterConnection<byte[], byte[]> getSharedClusterConnection() {
		SharedConnectionSet set = this.imperativeConnections;
		if (!getShareNativeConnection() || !isClusterAware() || set == null) {
			return null;
		}
		return (StatefulRedisClusterConnection<byte[], byte[]>) select(set);
	}

	@Override
	@SuppressWarnings("unchecked")
	protected @Nullable StatefulConnection<ByteBuffer, ByteBuffer> getSharedReactiveConnection() {
		SharedConnectionSet set = this.reactiveConnections;
		if (!getShareNativeConnection() || set == null) {
			return null;
		}
		return (StatefulConnection<ByteBuffer, ByteBuffer>) set.selectCountingCommands();
	}

	@Override
	protected LettuceConnection doCreateLettuceConnection(
			@Nullable StatefulRedisConnection<byte[], byte[]> sharedConnection,
			LettuceConnectionProvider connectionProvider, long timeout, int database) {
		// Always our subclass: it words the exceptions of an outage; without hooks it
		// allocates no more
		ConnectionHooks hooks = hooks(sharedConnection);
		try {
			LettuceConnection connection = new TunedLettuceConnection(sharedConnection, connectionProvider, timeout,
					database, hooks, this.subscriptionWatch);
			connection.setPipeliningFlushPolicy(this.pipeliningFlushPolicy);
			return connection;
		}
		catch (RuntimeException ex) {
			if (hooks != null) {
				hooks.closed();
			}
			throw ex;
		}
	}

	@Override
	protected LettuceClusterConnection doCreateLettuceClusterConnection(
			@Nullable StatefulRedisClusterConnection<byte[], byte[]> sharedConnection,
			LettuceConnectionProvider connectionProvider, ClusterTopologyProvider topologyProvider,
			ClusterCommandExecutor clusterCommandExecutor, Duration commandTimeout) {
		ConnectionHooks hooks = hooks(sharedConnection);
		try {
			LettuceClusterConnection connection = new TunedLettuceClusterConnection(sharedConnection,
					connectionProvider, topologyProvider, clusterCommandExecutor, commandTimeout, hooks,
					this.subscriptionWatch);
			connection.setPipeliningFlushPolicy(this.pipeliningFlushPolicy);
			return connection;
		}
		catch (RuntimeException ex) {
			if (hooks != null) {
				hooks.closed();
			}
			throw ex;
		}
	}

	// Every operation on a shared connection is counted in flight, so it needs hooks of
	// its own; otherwise (pooled mode) the listener's hooks, or none, serve every
	// operation.
	private @Nullable ConnectionHooks hooks(@Nullable StatefulConnection<?, ?> sharedConnection) {
		ConnectionHooks listenerHooks = this.listenerHooks;
		if (sharedConnection != null) {
			return new ConnectionHooks(sharedConnection, this.imperativeConnections,
					(listenerHooks != null) ? listenerHooks.listener() : null);
		}
		return listenerHooks;
	}

	/**
	 * Open the shared connections of the imperative API; the reactive ones open on first
	 * reactive use.
	 */
	@Override
	public void initConnection() {
		resetConnection();
		SharedConnectionSet set = this.imperativeConnections;
		if (set != null && getShareNativeConnection()) {
			set.connectAll();
		}
	}

	@Override
	public void resetConnection() {
		closeQuietly(this.imperativeConnections);
		closeQuietly(this.reactiveConnections);
		super.resetConnection();
	}

	private static void closeQuietly(@Nullable SharedConnectionSet set) {
		if (set != null) {
			set.close();
		}
	}

	/**
	 * Check every open shared connection with a PING and replace those that are not open
	 * or do not answer, as Spring Data Redis does with its one shared connection.
	 */
	@Override
	public void validateConnection() {
		for (SharedConnectionSet set : new SharedConnectionSet[] { this.imperativeConnections,
				this.reactiveConnections }) {
			if (set != null) {
				set.validate();
			}
		}
	}

	/**
	 * Set whether to validate a shared connection with a PING each time an operation
	 * picks it, replacing it when it is not open or does not answer (as
	 * {@link LettuceConnectionFactory} does with its one shared connection), and whether
	 * the dedicated pool validates a connection the same way before lending it.
	 * @param validateConnection whether to validate connections before use
	 */
	@Override
	public void setValidateConnection(boolean validateConnection) {
		super.setValidateConnection(validateConnection);
		for (SharedConnectionSet set : new SharedConnectionSet[] { this.imperativeConnections,
				this.reactiveConnections }) {
			if (set != null) {
				set.setValidateConnection(validateConnection);
			}
		}
		if (this.imperativeDedicated instanceof DedicatedConnectionPool pool) {
			pool.setValidateConnection(validateConnection);
		}
	}

}
