package io.github.lettucetuning.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.lettucetuning.connection.ConnectionMode;
import io.github.lettucetuning.connection.SelectionPolicy;
import io.github.lettucetuning.socket.Transport;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties of lettuce-tuning. Every {@code spring.data.redis.*} property
 * keeps its meaning; these add what Spring Boot does not offer.
 *
 * @since 0.1.0
 */
@ConfigurationProperties("lettuce.tuning")
public class LettuceTuningProperties implements InitializingBean {

	/**
	 * Whether to apply lettuce-tuning. When false, Spring Boot's stock Redis
	 * auto-configuration applies unchanged.
	 */
	private boolean enabled = true;

	private final Connection connection = new Connection();

	private final Timer timer = new Timer();

	private final Metrics metrics = new Metrics();

	private final Health health = new Health();

	private final Cluster cluster = new Cluster();

	private final Socket socket = new Socket();

	private final Dns dns = new Dns();

	private final Resilience resilience = new Resilience();

	private final Sentinel sentinel = new Sentinel();

	private final Credentials credentials = new Credentials();

	private final NearCache nearCache = new NearCache();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Connection getConnection() {
		return this.connection;
	}

	public Timer getTimer() {
		return this.timer;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Health getHealth() {
		return this.health;
	}

	public Cluster getCluster() {
		return this.cluster;
	}

	public Socket getSocket() {
		return this.socket;
	}

	public Dns getDns() {
		return this.dns;
	}

	public Resilience getResilience() {
		return this.resilience;
	}

	public Sentinel getSentinel() {
		return this.sentinel;
	}

	public Credentials getCredentials() {
		return this.credentials;
	}

	public NearCache getNearCache() {
		return this.nearCache;
	}

	// Validates once, when the properties are bound (as Spring Boot's
	// OAuth2ClientProperties does), so that startup fails before anything connects;
	// Boot's failure analysis names the property, the value and the fix.
	@Override
	public void afterPropertiesSet() {
		LettuceTuningPropertiesValidator.validate(this);
	}

	/**
	 * How plain commands reach Redis.
	 */
	public static class Connection {

		/**
		 * How plain (non-dedicated) commands are spread over native connections: 'shared'
		 * (one connection for all threads), 'multi' (a set of shared connections) or
		 * 'pooled' (thread-confined pooled connections, needs commons-pool2).
		 */
		private ConnectionMode mode = ConnectionMode.SHARED;

		/**
		 * Whether to open the shared connections at startup instead of on first use.
		 * Startup then fails fast when Redis cannot be reached.
		 */
		private boolean eagerInitialization;

		/**
		 * Number of Netty I/O threads. Defaults to Lettuce's default (the number of
		 * available processors, at least 2), raised to the connection set size in 'multi'
		 * mode.
		 */
		private @Nullable Integer ioThreads;

		/**
		 * Number of computation threads (event bus, topology refresh, completion of
		 * expired commands). Defaults to Lettuce's default (the number of available
		 * processors, at least 2).
		 */
		private @Nullable Integer computationThreads;

		private final Multi multi = new Multi();

		private final Pool pool = new Pool();

		public ConnectionMode getMode() {
			return this.mode;
		}

		public void setMode(ConnectionMode mode) {
			this.mode = mode;
		}

		public boolean isEagerInitialization() {
			return this.eagerInitialization;
		}

		public void setEagerInitialization(boolean eagerInitialization) {
			this.eagerInitialization = eagerInitialization;
		}

		public @Nullable Integer getIoThreads() {
			return this.ioThreads;
		}

		public void setIoThreads(@Nullable Integer ioThreads) {
			this.ioThreads = ioThreads;
		}

		public @Nullable Integer getComputationThreads() {
			return this.computationThreads;
		}

		public void setComputationThreads(@Nullable Integer computationThreads) {
			this.computationThreads = computationThreads;
		}

		public Multi getMulti() {
			return this.multi;
		}

		public Pool getPool() {
			return this.pool;
		}

	}

	/**
	 * The connection set of the 'multi' mode.
	 */
	public static class Multi {

		/**
		 * Number of shared connections in the set. Defaults to the number of available
		 * processors.
		 */
		private @Nullable Integer size;

		/**
		 * How one member of the set is picked per operation: 'round-robin',
		 * 'thread-affinity' (a thread keeps its connection, so its commands stay in
		 * order) or 'least-in-flight'.
		 */
		private SelectionPolicy selection = SelectionPolicy.ROUND_ROBIN;

		public @Nullable Integer getSize() {
			return this.size;
		}

		public void setSize(@Nullable Integer size) {
			this.size = size;
		}

		public SelectionPolicy getSelection() {
			return this.selection;
		}

		public void setSelection(SelectionPolicy selection) {
			this.selection = selection;
		}

	}

	/**
	 * The pool of dedicated connections (transactions, blocking commands, Pub/Sub). Its
	 * sizes and its max-wait come from 'spring.data.redis.lettuce.pool.*'.
	 */
	public static class Pool {

		/**
		 * Whether to open 'spring.data.redis.lettuce.pool.min-idle' dedicated connections
		 * at startup instead of on first use.
		 */
		private boolean prewarm;

		public boolean isPrewarm() {
			return this.prewarm;
		}

		public void setPrewarm(boolean prewarm) {
			this.prewarm = prewarm;
		}

	}

	/**
	 * The timer that expires commands past their timeout.
	 */
	public static class Timer {

		/**
		 * Which timer expires commands: 'wheel' (lettuce-tuning's lock-free timing wheel)
		 * or 'netty' (Lettuce's stock HashedWheelTimer with a 100ms tick).
		 */
		private TimerType type = TimerType.WHEEL;

		/**
		 * Tick of the timing wheel: a timeout fires at most one tick after its deadline.
		 */
		private Duration tick = Duration.ofMillis(10);

		/**
		 * Number of buckets of the timing wheel. Tick times wheel size is the span one
		 * revolution covers; longer timeouts take extra rounds. Defaults to a size whose
		 * span covers a 60s timeout.
		 */
		private @Nullable Integer wheelSize;

		/**
		 * Maximum number of pending timeouts; scheduling past it fails with a clear
		 * exception instead of growing without bound.
		 */
		private @Nullable Long maxPending;

		public TimerType getType() {
			return this.type;
		}

		public void setType(TimerType type) {
			this.type = type;
		}

		public Duration getTick() {
			return this.tick;
		}

		public void setTick(Duration tick) {
			this.tick = tick;
		}

		public @Nullable Integer getWheelSize() {
			return this.wheelSize;
		}

		public void setWheelSize(@Nullable Integer wheelSize) {
			this.wheelSize = wheelSize;
		}

		public @Nullable Long getMaxPending() {
			return this.maxPending;
		}

		public void setMaxPending(@Nullable Long maxPending) {
			this.maxPending = maxPending;
		}

	}

	/**
	 * Redis Cluster: which nodes the client uses. Applies however the cluster is defined
	 * ('spring.data.redis.cluster.*', connection details or a RedisClusterConfiguration
	 * bean). Topology refresh and redirects are Spring Boot's
	 * 'spring.data.redis.lettuce.cluster.refresh.*' and
	 * 'spring.data.redis.cluster.max-redirects'.
	 */
	public static class Cluster {

		private final NodeFilter nodeFilter = new NodeFilter();

		public NodeFilter getNodeFilter() {
			return this.nodeFilter;
		}

	}

	/**
	 * Redis Sentinel.
	 */
	public static class Sentinel {

		/**
		 * Whether to follow a Sentinel failover at once: on Sentinel's +switch-master
		 * message, the connections to the former master are closed so that they reconnect
		 * to the new one through Sentinel.
		 */
		private boolean followSwitchMaster = true;

		public boolean isFollowSwitchMaster() {
			return this.followSwitchMaster;
		}

		public void setFollowSwitchMaster(boolean followSwitchMaster) {
			this.followSwitchMaster = followSwitchMaster;
		}

	}

	/**
	 * Near cache for Spring Boot's RedisCacheManager: values read through the listed
	 * caches are kept in the application's memory until Redis says that their key
	 * changed.
	 */
	public static class NearCache {

		/**
		 * Names of the caches of Spring Boot's RedisCacheManager whose values are kept in
		 * memory, or '*' for every cache. Empty switches the near cache off.
		 */
		private List<String> caches = new ArrayList<>();

		/**
		 * Most entries kept in memory, over all near caches of the application.
		 */
		private long maximumSize = 10000;

		/**
		 * Most bytes of keys and values kept in memory, over all near caches of the
		 * application, in place of maximum-size, which must then be left unset. Unset
		 * bounds by entries.
		 */
		private @Nullable DataSize maximumBytes;

		/**
		 * Whether each read of a near cache deserialises a copy of its own of the value,
		 * as RedisCacheManager does. False hands every read of a key the object
		 * deserialised once, until Redis invalidates the key, as Caffeine's and
		 * ConcurrentMap's cache managers do: much cheaper, and right only when no reader
		 * changes the values it gets. Values of immutable JDK types (String, boxed
		 * primitives, UUID, java.time values, enums) are shared either way.
		 */
		private boolean storeByValue = true;

		public List<String> getCaches() {
			return this.caches;
		}

		public void setCaches(List<String> caches) {
			this.caches = caches;
		}

		public long getMaximumSize() {
			return this.maximumSize;
		}

		public void setMaximumSize(long maximumSize) {
			this.maximumSize = maximumSize;
		}

		public @Nullable DataSize getMaximumBytes() {
			return this.maximumBytes;
		}

		public void setMaximumBytes(@Nullable DataSize maximumBytes) {
			this.maximumBytes = maximumBytes;
		}

		public boolean isStoreByValue() {
			return this.storeByValue;
		}

		public void setStoreByValue(boolean storeByValue) {
			this.storeByValue = storeByValue;
		}

	}

	/**
	 * Credentials from a bean.
	 */
	public static class Credentials {

		/**
		 * Which RedisCredentialsProvider or RedisCredentialsProviderFactory bean Spring
		 * Boot's Redis connection authenticates with. 'auto' takes the bean
		 * marked @Primary, and only when spring.data.redis.username and password are
		 * unset; any other bean may be meant for another Redis, as on stock Spring Boot,
		 * which wires none. 'none' takes no bean. Any other value is the name of the bean
		 * to take, in place of spring.data.redis.username and password.
		 */
		private String provider = "auto";

		public String getProvider() {
			return this.provider;
		}

		public void setProvider(String provider) {
			this.provider = provider;
		}

	}

	/**
	 * Which nodes of a loaded topology the client keeps. A master left out closes its
	 * connection instead of holding commands until they time out.
	 */
	public static class NodeFilter {

		/**
		 * Whether to leave out nodes the cluster agreed are down (flag 'fail').
		 */
		private boolean excludeFailed = true;

		/**
		 * Whether to leave out nodes that the node answering the topology query cannot
		 * reach (flag 'fail?', PFAIL). Faster after a crash; with flaky links between
		 * nodes it can leave out a master that clients still reach.
		 */
		private boolean excludePossiblyFailed = true;

		/**
		 * Whether to leave out nodes without an address (flag 'noaddr', or no host or
		 * port).
		 */
		private boolean excludeWithoutAddress = true;

		public boolean isExcludeFailed() {
			return this.excludeFailed;
		}

		public void setExcludeFailed(boolean excludeFailed) {
			this.excludeFailed = excludeFailed;
		}

		public boolean isExcludePossiblyFailed() {
			return this.excludePossiblyFailed;
		}

		public void setExcludePossiblyFailed(boolean excludePossiblyFailed) {
			this.excludePossiblyFailed = excludePossiblyFailed;
		}

		public boolean isExcludeWithoutAddress() {
			return this.excludeWithoutAddress;
		}

		public void setExcludeWithoutAddress(boolean excludeWithoutAddress) {
			this.excludeWithoutAddress = excludeWithoutAddress;
		}

	}

	/**
	 * Sockets of every Lettuce connection: transport, write batching and
	 * TCP_USER_TIMEOUT. 'spring.data.redis.connect-timeout' keeps its meaning; TCP
	 * keep-alive is Lettuce's (on, 13s idle, 13s interval, 3 probes since Lettuce 7.5).
	 */
	public static class Socket {

		/**
		 * Netty transport: 'auto' (epoll, else kqueue, else io_uring, else NIO, as
		 * available), 'epoll', 'io-uring' or 'nio'. Lettuce fixes it once per JVM; asking
		 * for one that is not available fails startup.
		 */
		private Transport transport = Transport.AUTO;

		private final FlushConsolidation flushConsolidation = new FlushConsolidation();

		private final TcpUserTimeout tcpUserTimeout = new TcpUserTimeout();

		public Transport getTransport() {
			return this.transport;
		}

		public void setTransport(Transport transport) {
			this.transport = transport;
		}

		public FlushConsolidation getFlushConsolidation() {
			return this.flushConsolidation;
		}

		public TcpUserTimeout getTcpUserTimeout() {
			return this.tcpUserTimeout;
		}

	}

	/**
	 * How host names are resolved to addresses. Lettuce resolves the host of every
	 * connection again on each connect and reconnect; these settings bound how old the
	 * answer it gets may be, so that a name a failover moves to another address is
	 * followed once the old connection is lost.
	 */
	public static class Dns {

		/**
		 * Whether each client gets its own resolver: Netty's non-blocking DNS resolver,
		 * as Lettuce's default, but with answers reused for at most 'max-ttl', the JVM's
		 * hosts file ('jdk.net.hosts.file' when set, else the system's) re-read as often,
		 * and closed with the client. When false, Lettuce's JVM-wide resolver applies,
		 * which keeps answers for their DNS TTL and reads /etc/hosts once.
		 */
		private boolean enabled = true;

		/**
		 * Longest time a resolved address, from DNS or the hosts file, is reused for a
		 * new connection; a shorter DNS TTL still applies. Whole seconds; 0 asks on every
		 * connect. A moved name is followed within this, plus the reconnect delay, after
		 * the old connection is lost.
		 */
		private Duration maxTtl = Duration.ofSeconds(5);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getMaxTtl() {
			return this.maxTtl;
		}

		public void setMaxTtl(Duration maxTtl) {
			this.maxTtl = maxTtl;
		}

	}

	/**
	 * Merging the flushes of commands sent by many threads over one connection into fewer
	 * socket writes (Netty's FlushConsolidationHandler on every connection).
	 */
	public static class FlushConsolidation {

		/**
		 * Whether to merge flushes. A flush then waits only for the event loop's tasks
		 * queued before it, never for a timer. A Netty customizer that a
		 * ClientResourcesBuilderCustomizer of yours sets runs before it, on every
		 * connection.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * How a lost connection is re-established.
	 */
	public static class Reconnect {

		/**
		 * Longest wait between two reconnect attempts. The first attempt goes at once;
		 * from the second, the delay doubles from 8ms up to it. In a cluster each failed
		 * attempt can trigger a topology refresh (Lettuce's 'persistent-reconnects'
		 * trigger), so a short maximum finds a promoted replica sooner. Lettuce's default
		 * is 30s.
		 */
		private Duration maxDelay = Duration.ofSeconds(1);

		/**
		 * How reconnect delays are randomised so that many clients that lost the same
		 * server do not reconnect in lock-step: 'full' (random between half the doubling
		 * delay and all of it), 'decorrelated' (grows from the previous delay) or 'none'
		 * (the plain doubling delay).
		 */
		private ReconnectJitter jitter = ReconnectJitter.FULL;

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			this.maxDelay = maxDelay;
		}

		public ReconnectJitter getJitter() {
			return this.jitter;
		}

		public void setJitter(ReconnectJitter jitter) {
			this.jitter = jitter;
		}

	}

	/**
	 * TCP_USER_TIMEOUT: how long sent data may stay unacknowledged before the kernel
	 * drops the connection. Keep-alive cannot detect a dead peer while data is in flight;
	 * without this, Linux retransmits for about 15 minutes.
	 */
	public static class TcpUserTimeout {

		/**
		 * Whether to set TCP_USER_TIMEOUT. Takes effect with a native transport (epoll or
		 * io_uring) only; elsewhere it is reported inactive.
		 */
		private boolean enabled = true;

		/**
		 * How long sent data may stay unacknowledged. Defaults to the keep-alive's idle +
		 * interval x count (52s with Lettuce's keep-alive), so that neither gives up
		 * before the other.
		 */
		private @Nullable Duration duration;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public @Nullable Duration getDuration() {
			return this.duration;
		}

		public void setDuration(@Nullable Duration duration) {
			this.duration = duration;
		}

	}

	/**
	 * Micrometer metrics of the Lettuce client.
	 */
	public static class Metrics {

		/**
		 * Whether to register lettuce-tuning's meters: shared connections, dedicated
		 * pool, expiry timer, reconnects, topology refreshes, redirections, command
		 * timeouts and the near cache.
		 */
		private boolean enabled = true;

		private final CommandLatency commandLatency = new CommandLatency();

		private final FastPath fastPath = new FastPath();

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public CommandLatency getCommandLatency() {
			return this.commandLatency;
		}

		public FastPath getFastPath() {
			return this.fastPath;
		}

	}

	/**
	 * Spring Boot's 'lettuce' timer and 'lettuce.active' long-task timer recorded by
	 * lettuce-tuning itself, with the same names, tags and values, instead of by an
	 * observation per command ('lettuce.active' is computed when read, from the commands
	 * in flight). It applies only where nothing but Boot's meter handler would see
	 * Lettuce's observations: no tracing bridge, no observation handler, predicate,
	 * filter or convention of the application's. '/actuator/lettuce' says which path is
	 * in use and why.
	 */
	public static class FastPath {

		/**
		 * Whether lettuce-tuning may record the 'lettuce' and 'lettuce.active' timers
		 * itself where it applies.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Command latency timers 'lettuce.command.completion' and
	 * 'lettuce.command.firstresponse', with Spring Boot 3's names and tags. Histogram,
	 * percentiles and tags take Lettuce's MicrometerOptions defaults; a MicrometerOptions
	 * bean of the application's replaces them.
	 */
	public static class CommandLatency {

		/**
		 * Whether to record command latencies when a MeterRegistry is present. When not
		 * set, they are recorded unless Spring Boot's 'lettuce' observation is on (with
		 * Actuator it is), which already times every command: measuring each command
		 * twice costs client CPU. When they are not recorded, Lettuce's own HdrHistogram
		 * collector stays off too.
		 */
		private @Nullable Boolean enabled;

		public @Nullable Boolean getEnabled() {
			return this.enabled;
		}

		public void setEnabled(@Nullable Boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * The 'lettuce' health indicator, switched on and off with
	 * 'management.health.lettuce.enabled'.
	 */
	public static class Health {

		/**
		 * How long the health check waits for Redis before it reports DOWN.
		 */
		private Duration timeout = Duration.ofSeconds(2);

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * What happens to commands while Redis is unreachable or stops answering.
	 */
	public static class Resilience {

		private final FailFast failFast = new FailFast();

		private final StallDetection stallDetection = new StallDetection();

		private final BlockingCallGuard blockingCallGuard = new BlockingCallGuard();

		private final BlockedLoopDetection blockedLoopDetection = new BlockedLoopDetection();

		/**
		 * Most commands one connection holds while they wait to be sent or answered; past
		 * it, new commands fail at once. Lettuce's default has no bound.
		 */
		private int requestQueueSize = 100_000;

		private final Reconnect reconnect = new Reconnect();

		private final RoleChange roleChange = new RoleChange();

		private final MaintenanceNotifications maintenanceNotifications = new MaintenanceNotifications();

		public FailFast getFailFast() {
			return this.failFast;
		}

		public StallDetection getStallDetection() {
			return this.stallDetection;
		}

		public BlockingCallGuard getBlockingCallGuard() {
			return this.blockingCallGuard;
		}

		public BlockedLoopDetection getBlockedLoopDetection() {
			return this.blockedLoopDetection;
		}

		public int getRequestQueueSize() {
			return this.requestQueueSize;
		}

		public void setRequestQueueSize(int requestQueueSize) {
			this.requestQueueSize = requestQueueSize;
		}

		public Reconnect getReconnect() {
			return this.reconnect;
		}

		public RoleChange getRoleChange() {
			return this.roleChange;
		}

		public MaintenanceNotifications getMaintenanceNotifications() {
			return this.maintenanceNotifications;
		}

	}

	/**
	 * Following a primary that is demoted in place (a managed failover that makes the old
	 * primary a replica and keeps its client connections), for standalone and Sentinel
	 * connections without read-from.
	 */
	public static class RoleChange {

		/**
		 * Whether a connection whose server refuses a write with READONLY is closed, so
		 * that it reconnects to the endpoint's current address (or the master Sentinel
		 * names). The commands waiting on it fail and are not retried.
		 */
		private boolean enabled = true;

		/**
		 * Shortest time between two such reconnects of one connection, plus up to half of
		 * it as jitter. While a reconnect keeps reaching the same replica, the interval
		 * doubles up to one minute.
		 */
		private Duration minInterval = Duration.ofSeconds(2);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getMinInterval() {
			return this.minInterval;
		}

		public void setMinInterval(Duration minInterval) {
			this.minInterval = minInterval;
		}

	}

	/**
	 * Lettuce's request for maintenance notifications (CLIENT MAINT_NOTIFICATIONS), which
	 * it sends at the end of every handshake.
	 */
	public static class MaintenanceNotifications {

		/**
		 * Whether the client stops asking for maintenance notifications on new
		 * connections once a server refused them, instead of being refused on every
		 * connection. A server that accepts them keeps getting the request.
		 */
		private boolean stopAfterRefusal = true;

		public boolean isStopAfterRefusal() {
			return this.stopAfterRefusal;
		}

		public void setStopAfterRefusal(boolean stopAfterRefusal) {
			this.stopAfterRefusal = stopAfterRefusal;
		}

	}

	/**
	 * Failing commands at once while a connection is down, instead of queueing them until
	 * Redis returns or the command timeout passes.
	 */
	public static class FailFast {

		/**
		 * Whether commands fail at once when their connection has been down for longer
		 * than the grace.
		 */
		private boolean enabled = true;

		/**
		 * How long a connection may be down before its queued and new commands fail.
		 * Reconnects after a CLUSTER FAILOVER, a CLIENT KILL or a Sentinel switch take a
		 * few hundred milliseconds and stay invisible within it.
		 */
		private Duration grace = Duration.ofSeconds(1);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getGrace() {
			return this.grace;
		}

		public void setGrace(Duration grace) {
			this.grace = grace;
		}

	}

	/**
	 * Detecting a server that stops answering while its socket stays open (SIGSTOP, a
	 * stuck fork, a runaway script).
	 */
	public static class StallDetection {

		/**
		 * Whether a connection on which commands wait and nothing is read for the timeout
		 * is closed and counted as down.
		 */
		private boolean enabled = true;

		/**
		 * How long commands may wait with nothing read from the server before their
		 * connection counts as stalled; they then fail. Blocking commands (BLPOP, XREAD,
		 * WAIT and the like) at the head of the queue are exempt while their caller waits
		 * for them.
		 */
		private Duration timeout = Duration.ofSeconds(2);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	/**
	 * Guarding the client's event-loop threads, which read every reply, against
	 * synchronous Redis calls that would wait for a reply only they can read.
	 */
	public static class BlockingCallGuard {

		/**
		 * Whether the client's I/O threads are marked as non-blocking, so that Reactor's
		 * block() fails on them, and a synchronous Spring Data Redis call made on one
		 * fails at once where its command would go out through that same loop, instead of
		 * hanging every command on the loop's connections until the command timeout.
		 */
		private boolean enabled = true;

		/**
		 * Whether every synchronous Spring Data Redis call made on an event-loop thread
		 * fails at once, including those whose connection another loop serves, which
		 * complete otherwise (with a warning logged once per call site).
		 */
		private boolean strict;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isStrict() {
			return this.strict;
		}

		public void setStrict(boolean strict) {
			this.strict = strict;
		}

	}

	/**
	 * Detecting an event loop that the application blocks while commands wait on its
	 * connections.
	 */
	public static class BlockedLoopDetection {

		/**
		 * Whether an event loop that does not run for the threshold while commands wait
		 * is logged with its stack trace, counted and shown in the lettuce endpoint, and
		 * kept from counting as a Redis stall.
		 */
		private boolean enabled = true;

		/**
		 * How long an event loop may not run while commands wait before it counts as
		 * blocked.
		 */
		private Duration threshold = Duration.ofMillis(500);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getThreshold() {
			return this.threshold;
		}

		public void setThreshold(Duration threshold) {
			this.threshold = threshold;
		}

	}

	/**
	 * How reconnect delays are randomised.
	 */
	public enum ReconnectJitter {

		/**
		 * A random delay between half the doubling delay and all of it (Lettuce's full
		 * jitter).
		 */
		FULL,

		/**
		 * A random delay between the minimum and three times the previous delay.
		 */
		DECORRELATED,

		/**
		 * The plain doubling delay.
		 */
		NONE

	}

	/**
	 * Timers that can expire Lettuce commands.
	 */
	public enum TimerType {

		/**
		 * lettuce-tuning's lock-free timing wheel.
		 */
		WHEEL,

		/**
		 * Lettuce's stock Netty HashedWheelTimer.
		 */
		NETTY

	}

}
