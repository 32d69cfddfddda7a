package io.github.lettucetuning.advice;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

import org.jspecify.annotations.Nullable;

/**
 * Judges an {@link EffectiveConfiguration} and returns findings, each with a stable id, a
 * severity and a one-line fix; most severe first. Stateless and free of I/O.
 *
 * @since 0.1.0
 */
public final class TuningAdvisor {

	/**
	 * A pool carries the plain command traffic.
	 */
	public static final String POOL_SHARED_TRAFFIC = "pool-shared-traffic";

	/**
	 * A cluster topology that is never refreshed periodically.
	 */
	public static final String CLUSTER_NO_PERIODIC_REFRESH = "cluster-no-periodic-refresh";

	/**
	 * A transport that cannot set TCP_USER_TIMEOUT.
	 */
	public static final String NO_NATIVE_TRANSPORT = "no-native-transport";

	/**
	 * A native transport with TCP_USER_TIMEOUT off.
	 */
	public static final String NO_TCP_USER_TIMEOUT = "no-tcp-user-timeout";

	/**
	 * TCP keep-alive off, or on the operating system's two-hour timings.
	 */
	public static final String NO_KEEP_ALIVE = "no-keep-alive";

	/**
	 * A command timeout below or near the expiry timer's tick.
	 */
	public static final String TIMEOUT_BELOW_TIMER_TICK = "timeout-below-timer-tick";

	/**
	 * Fewer I/O threads than shared connections in multi mode.
	 */
	public static final String MULTI_FEWER_IO_THREADS = "multi-fewer-io-threads";

	/**
	 * A pool wait that is unbounded or longer than the command timeout.
	 */
	public static final String UNBOUNDED_POOL_WAIT = "unbounded-pool-wait";

	/**
	 * Spring Boot's unbounded {@code redis} health indicator next to the bounded one.
	 */
	public static final String REDIS_HEALTH_UNBOUNDED = "redis-health-unbounded";

	/**
	 * A resolver that may hand out a DNS answer long after the name moved.
	 */
	public static final String STALE_DNS_ANSWERS = "stale-dns-answers";

	// Below this many ticks, the tick is a noticeable share of the timeout.
	private static final int TIMEOUT_TICKS = 10;

	/**
	 * Judge a configuration.
	 * @param configuration the effective configuration
	 * @return the findings, most severe first
	 */
	public List<Finding> advise(EffectiveConfiguration configuration) {
		List<Finding> findings = new ArrayList<>();
		poolSharedTraffic(configuration, findings);
		clusterNoPeriodicRefresh(configuration, findings);
		transport(configuration.socket(), findings);
		staleDnsAnswers(configuration.socket().dns(), findings);
		timeoutBelowTimerTick(configuration, findings);
		multiFewerIoThreads(configuration, findings);
		unboundedPoolWait(configuration, findings);
		redisHealthUnbounded(configuration, findings);
		findings.sort(Comparator.comparing(TuningAdvisor::severity).reversed().thenComparing(Finding::id));
		return List.copyOf(findings);
	}

	private void poolSharedTraffic(EffectiveConfiguration configuration, List<Finding> findings) {
		EffectiveConfiguration.Connections connections = configuration.connections();
		if (!connections.shareNativeConnection()) {
			findings.add(Finding.of(POOL_SHARED_TRAFFIC, Severity.WARNING,
					"Every operation borrows a pooled connection (mode " + connections.mode()
							+ "): about half the throughput and twice the client CPU per command of a shared "
							+ "connection",
					"Set lettuce.tuning.connection.mode=shared (or multi); the pool then serves only transactions, "
							+ "blocking commands and Pub/Sub"));
		}
	}

	private void clusterNoPeriodicRefresh(EffectiveConfiguration configuration, List<Finding> findings) {
		EffectiveConfiguration.Cluster cluster = configuration.cluster();
		if (cluster != null && !cluster.periodicRefresh()) {
			String triggers = cluster.adaptiveTriggers().isEmpty() ? "never refreshed"
					: "refreshed only on adaptive triggers (" + String.join(", ", cluster.adaptiveTriggers()) + ")";
			findings.add(Finding.of(CLUSTER_NO_PERIODIC_REFRESH, Severity.WARNING,
					"The cluster topology is " + triggers
							+ ": a failover or new node that fires no trigger stays unseen",
					"Enable periodic refresh: set spring.data.redis.lettuce.cluster.refresh.period (30s when unset), "
							+ "and check that no LettuceClientOptionsBuilderCustomizer switches it off"));
		}
	}

	private void transport(EffectiveConfiguration.Socket socket, List<Finding> findings) {
		if (!socket.supportsTcpUserTimeout()) {
			findings.add(Finding.of(NO_NATIVE_TRANSPORT, isLinux() ? Severity.WARNING : Severity.INFO,
					"Transport " + socket.transport() + " cannot set TCP_USER_TIMEOUT: a Redis host that dies "
							+ "without closing its connections stalls commands until the kernel gives up "
							+ "(about 15 minutes)",
					"Add io.netty:netty-transport-native-epoll (classifier linux-x86_64 or linux-aarch_64) to the "
							+ "runtime classpath"));
		}
		else if (!socket.tcpUserTimeout().active()) {
			findings.add(Finding.of(NO_TCP_USER_TIMEOUT, Severity.WARNING,
					"TCP_USER_TIMEOUT is off on transport " + socket.transport() + ": a Redis host that dies without "
							+ "closing its connections stalls commands until the kernel gives up (about 15 minutes)",
					"Set lettuce.tuning.socket.tcp-user-timeout.enabled=true"));
		}
		EffectiveConfiguration.KeepAlive keepAlive = socket.keepAlive();
		if (!keepAlive.active() || !keepAlive.extended()) {
			findings.add(Finding.of(NO_KEEP_ALIVE, Severity.WARNING,
					keepAlive.active() ? "TCP keep-alive runs on the operating system's timings (about two hours)"
							: "TCP keep-alive is off: an idle connection to a dead host is never detected",
					"Keep Lettuce's keep-alive (on, 13s idle, 13s interval, 3 probes since Lettuce 7.5): remove the "
							+ "customizer that changes it; idle, interval and count apply on epoll, io_uring and NIO"));
		}
	}

	private void staleDnsAnswers(EffectiveConfiguration.Dns dns, List<Finding> findings) {
		String fix = "Leave lettuce.tuning.dns.enabled at true and remove any customizer that sets another address "
				+ "resolver: each connect then resolves through a resolver whose answers are at most "
				+ "lettuce.tuning.dns.max-ttl (5s) old";
		if ("lettuce".equals(dns.resolver())) {
			findings.add(Finding.of(STALE_DNS_ANSWERS, Severity.INFO,
					"Lettuce's JVM-wide resolver keeps a DNS answer for the TTL the record carries and reads "
							+ "/etc/hosts once: after a failover that moves the endpoint's address, reconnects may "
							+ "reach the old address for that long",
					fix));
		}
		else if ("jdk".equals(dns.resolver())) {
			Duration ttl = dns.maxTtl();
			findings.add(Finding.of(STALE_DNS_ANSWERS, (ttl == null) ? Severity.WARNING : Severity.INFO,
					"The JDK's resolver keeps answers JVM-wide for " + ((ttl != null) ? ttl.toSeconds() + "s" : "ever")
							+ " (networkaddress.cache.ttl) and "
							+ "blocks an event loop while DNS answers: after a failover that moves the endpoint's "
							+ "address, reconnects reach the old address for that long",
					fix));
		}
	}

	private void timeoutBelowTimerTick(EffectiveConfiguration configuration, List<Finding> findings) {
		Duration tick = configuration.timer().tick();
		Duration timeout = configuration.commands().timeout();
		if (!configuration.commands().expiry() || tick == null || tick.isZero() || timeout.isZero()
				|| timeout.isNegative()) {
			return;
		}
		if (timeout.compareTo(tick.multipliedBy(TIMEOUT_TICKS)) >= 0) {
			return;
		}
		Severity severity = (timeout.compareTo(tick) <= 0) ? Severity.ERROR : Severity.WARNING;
		long percent = Math.round(100.0 * tick.toNanos() / timeout.toNanos());
		findings.add(Finding.of(TIMEOUT_BELOW_TIMER_TICK, severity,
				"Command timeout " + format(timeout) + " is within " + TIMEOUT_TICKS + " ticks of the " + format(tick)
						+ " " + configuration.timer().type()
						+ " timer: asynchronous and reactive commands may run up to " + format(tick) + " (" + percent
						+ "%) past their timeout",
				"Use lettuce.tuning.timer.type=wheel with a finer lettuce.tuning.timer.tick (10ms by default), "
						+ "or raise spring.data.redis.timeout"));
	}

	private void multiFewerIoThreads(EffectiveConfiguration configuration, List<Finding> findings) {
		EffectiveConfiguration.Connections connections = configuration.connections();
		int io = configuration.threads().io();
		if ("multi".equals(connections.mode()) && io < connections.shared()) {
			findings.add(Finding.of(MULTI_FEWER_IO_THREADS, Severity.WARNING,
					connections.shared() + " shared connections run on " + io
							+ " I/O threads: connections on the same event loop serialise their I/O",
					"Set lettuce.tuning.connection.io-threads to at least " + connections.shared()
							+ " (lettuce.tuning.connection.multi.size), or lower the size"));
		}
	}

	private void unboundedPoolWait(EffectiveConfiguration configuration, List<Finding> findings) {
		EffectiveConfiguration.Pool pool = configuration.pool();
		if (pool == null) {
			return;
		}
		Duration maxWait = pool.maxWait();
		String fix = "Set spring.data.redis.lettuce.pool.max-wait to a positive duration no longer than the command "
				+ "timeout, e.g. 2s, or remove it for lettuce-tuning's default";
		if (maxWait == null || maxWait.isNegative() || maxWait.isZero()) {
			findings.add(Finding.of(UNBOUNDED_POOL_WAIT, Severity.WARNING,
					"A caller waits forever for a dedicated connection when the pool is exhausted", fix));
		}
		else if (maxWait.compareTo(configuration.commands().timeout()) > 0) {
			findings.add(Finding.of(UNBOUNDED_POOL_WAIT, Severity.INFO,
					"A caller may wait " + format(maxWait) + " for a dedicated connection, longer than the "
							+ format(configuration.commands().timeout()) + " command timeout",
					fix));
		}
	}

	private void redisHealthUnbounded(EffectiveConfiguration configuration, List<Finding> findings) {
		EffectiveConfiguration.Health health = configuration.health();
		if (health.unbounded() && !health.bounded()) {
			findings.add(Finding.of(REDIS_HEALTH_UNBOUNDED, Severity.INFO,
					"The 'redis' health contributor is not lettuce-tuning's bounded check: it may wait up to the "
							+ "command timeout (" + format(configuration.commands().timeout())
							+ ") when Redis hangs, holding /actuator/health",
					"Remove the application's redisHealthIndicator or redisHealthContributor bean so that the "
							+ "bounded check takes its place"));
		}
	}

	private static Severity severity(Finding finding) {
		return Severity.valueOf(finding.severity().toUpperCase(Locale.ROOT));
	}

	private static boolean isLinux() {
		return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
	}

	static String format(@Nullable Duration duration) {
		if (duration == null) {
			return "?";
		}
		long millis = duration.toMillis();
		if (millis % 60_000 == 0 && millis > 60_000) {
			return (millis / 60_000) + "m";
		}
		if (millis % 1000 == 0 && millis >= 1000) {
			return (millis / 1000) + "s";
		}
		return millis + "ms";
	}

}
