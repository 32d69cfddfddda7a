package io.github.lettucetuning.advice;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The Lettuce configuration in effect, as read from the running client rather than from
 * properties: what the {@code lettuce} endpoint shows and what {@link TuningAdvisor}
 * judges. Holds no credentials and no addresses.
 *
 * @param connections how commands reach Redis
 * @param commands command timeouts
 * @param threads the client's thread pools
 * @param timer the timer that expires commands
 * @param socket the socket settings
 * @param cluster the cluster options, or {@code null} when not connected to a cluster
 * @param pool the dedicated-connection pool, or {@code null} when dedicated connections
 * are not pooled
 * @param health the health indicators in use
 * @param resilience what happens to commands during an outage, or {@code null} when
 * lettuce-tuning's outage guard is not on the connections
 * @param commandMeters who records the {@code lettuce} command meters, or {@code null}
 * when Micrometer's observation API is not on the classpath
 * @since 0.1.0
 */
public record EffectiveConfiguration(Connections connections, Commands commands, Threads threads, Timer timer,
		Socket socket, @Nullable Cluster cluster, @Nullable Pool pool, Health health, @Nullable Resilience resilience,
		@Nullable CommandMeters commandMeters) {

	/**
	 * How commands reach Redis.
	 *
	 * @param mode {@code shared}, {@code multi} or {@code pooled}
	 * @param shared the number of shared native connections ({@code 0} when none is
	 * shared)
	 * @param selection how a shared connection is picked ({@code multi} mode only)
	 * @param shareNativeConnection whether plain commands share native connections
	 * @param eagerInitialization whether shared connections open at startup
	 */
	public record Connections(String mode, int shared, @Nullable String selection, boolean shareNativeConnection,
			boolean eagerInitialization) {
	}

	/**
	 * Command timeouts.
	 *
	 * @param timeout the command timeout
	 * @param expiry whether Lettuce expires commands past their timeout itself (otherwise
	 * only synchronous callers stop waiting)
	 */
	public record Commands(Duration timeout, boolean expiry) {
	}

	/**
	 * The client's thread pools.
	 *
	 * @param io Netty I/O threads
	 * @param computation computation threads (event bus, completion of expired commands)
	 */
	public record Threads(int io, int computation) {
	}

	/**
	 * The timer that expires commands.
	 *
	 * @param type {@code wheel} (lettuce-tuning's), {@code netty} (Netty's
	 * HashedWheelTimer) or the class name of another timer
	 * @param tick the granularity: a timeout fires up to one tick late; {@code null} when
	 * unknown
	 * @param wheelSize the number of buckets, when known
	 * @param maxPending the most pending timeouts allowed, when known
	 * @param owner who created the timer and stops it: {@code lettuce-tuning},
	 * {@code lettuce} or {@code application}
	 */
	public record Timer(String type, @Nullable Duration tick, @Nullable Integer wheelSize, @Nullable Long maxPending,
			String owner) {
	}

	/**
	 * Socket settings of every connection.
	 *
	 * @param transport {@code epoll}, {@code io_uring}, {@code kqueue} or {@code nio}
	 * @param nativeTransport whether the transport is native
	 * @param connectTimeout the connect timeout
	 * @param keepAlive TCP keep-alive
	 * @param tcpUserTimeout TCP_USER_TIMEOUT
	 * @param inactiveReason why a requested setting is inactive, when one is
	 * @param flushConsolidation the most flushes merged into one socket write,
	 * {@code null} when flushes are not merged
	 * @param dns how host names are resolved on each connect
	 * @param applicationNettyCustomizer the class of the Netty customizer the application
	 * set, which every connection runs before lettuce-tuning's, or {@code null} when it
	 * set none
	 */
	public record Socket(String transport, boolean nativeTransport, @Nullable Duration connectTimeout,
			KeepAlive keepAlive, TcpUserTimeout tcpUserTimeout, @Nullable String inactiveReason,
			@Nullable Integer flushConsolidation, Dns dns, @Nullable String applicationNettyCustomizer) {

		/**
		 * Return whether the transport can set TCP_USER_TIMEOUT.
		 * @return whether TCP_USER_TIMEOUT is possible
		 */
		public boolean supportsTcpUserTimeout() {
			return "epoll".equals(this.transport) || "io_uring".equals(this.transport);
		}

	}

	/**
	 * How host names are resolved. Lettuce resolves again on every connect and reconnect;
	 * how old the answer may be depends on the resolver.
	 *
	 * @param resolver {@code lettuce-tuning} (a resolver of this client's, answers reused
	 * for at most {@code maxTtl}), {@code lettuce} (Lettuce's JVM-wide DNS resolver:
	 * answers kept for their DNS TTL, /etc/hosts read once), {@code jdk} (the JDK's
	 * resolver and its JVM-wide cache) or the class name of another resolver
	 * @param maxTtl the longest time an answer is reused, {@code null} when the DNS
	 * answer's own TTL decides or it is unknown
	 * @param hostsFile the hosts file consulted before DNS, {@code platform} for the
	 * system's, {@code null} when unknown
	 */
	public record Dns(String resolver, @Nullable Duration maxTtl, @Nullable String hostsFile) {
	}

	/**
	 * TCP keep-alive.
	 *
	 * @param active whether keep-alive is on
	 * @param extended whether idle, interval and count apply (otherwise the operating
	 * system's defaults, about two hours)
	 * @param idle idle time before the first probe
	 * @param interval time between probes
	 * @param count unanswered probes before the connection is dropped
	 */
	public record KeepAlive(boolean active, boolean extended, @Nullable Duration idle, @Nullable Duration interval,
			@Nullable Integer count) {
	}

	/**
	 * TCP_USER_TIMEOUT.
	 *
	 * @param active whether it is set on the sockets
	 * @param timeout how long sent data may stay unacknowledged
	 */
	public record TcpUserTimeout(boolean active, @Nullable Duration timeout) {
	}

	/**
	 * Cluster options.
	 *
	 * @param periodicRefresh whether the topology is refreshed periodically
	 * @param refreshPeriod the refresh period
	 * @param adaptiveTriggers the adaptive refresh triggers enabled
	 * @param adaptiveTriggersTimeout the least time between two adaptive refreshes
	 * @param dynamicRefreshSources whether every known node is asked for the topology
	 * @param closeStaleConnections whether connections to departed nodes are closed
	 * @param validateMembership whether connections to nodes outside the known topology
	 * are refused
	 * @param maxRedirects the most MOVED or ASK redirects a command follows
	 */
	public record Cluster(boolean periodicRefresh, Duration refreshPeriod, List<String> adaptiveTriggers,
			Duration adaptiveTriggersTimeout, boolean dynamicRefreshSources, boolean closeStaleConnections,
			boolean validateMembership, int maxRedirects) {
	}

	/**
	 * The dedicated-connection pool.
	 *
	 * @param maxActive the most connections per pool
	 * @param maxIdle the most idle connections kept
	 * @param minIdle the idle connections kept open
	 * @param maxWait how long a caller waits for a connection when the pool is exhausted;
	 * {@code null} or not positive means forever
	 */
	public record Pool(int maxActive, int maxIdle, int minIdle, @Nullable Duration maxWait) {
	}

	/**
	 * The {@code redis} health contributor.
	 *
	 * @param bounded whether it is lettuce-tuning's bounded check
	 * @param timeout the bounded check's timeout
	 * @param unbounded whether another {@code redis} contributor, which may wait out the
	 * command timeout, is registered instead
	 */
	public record Health(boolean bounded, @Nullable Duration timeout, boolean unbounded) {
	}

	/**
	 * What happens to commands during an outage.
	 *
	 * @param failFast whether commands fail at once after the grace
	 * @param grace how long a connection may be down before its commands fail
	 * @param stallDetection whether a server that reads nothing while commands wait
	 * counts as down
	 * @param stallTimeout how long commands may wait with nothing read
	 * @param requestQueueSize the most commands one connection holds
	 */
	public record Resilience(boolean failFast, Duration grace, boolean stallDetection, Duration stallTimeout,
			int requestQueueSize) {
	}

	/**
	 * Who records the {@code lettuce} command meters.
	 *
	 * @param path {@code fast-path} (lettuce-tuning records the {@code lettuce} timer
	 * itself), {@code boot-observation} (Spring Boot's observation, one per command),
	 * {@code application-tracing} (the tracing an application's customizer set on the
	 * client resources) or {@code none}
	 * @param reason why that path
	 */
	public record CommandMeters(String path, String reason) {
	}

}
