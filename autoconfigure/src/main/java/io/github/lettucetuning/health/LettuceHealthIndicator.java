package io.github.lettucetuning.health;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.eventloop.BlockedEventLoop;
import io.github.lettucetuning.eventloop.EventLoopWatchdog;
import io.github.lettucetuning.resilience.OutageGuard;
import io.github.lettucetuning.state.ServerIdentity;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;
import org.springframework.util.Assert;

/**
 * The {@code redis} health: Redis as a {@link LettuceTuningConnectionFactory} sees it,
 * answered within a timeout. The check ({@code INFO server} on a standalone server,
 * {@code CLUSTER INFO} on a cluster, {@code PING} plus the client's cluster view for
 * users who may not run those) runs on one daemon thread of the indicator's own and is
 * awaited for at most the timeout, so a hung or unreachable server makes the health
 * {@code DOWN} within the timeout instead of holding the caller for the command timeout.
 * While a check is running, later calls wait for that same check instead of starting
 * another, so a hung server ties up one thread at most; nothing is queued beyond it.
 * <p>
 * Details: Spring Boot's ({@code version}, the server's own version rather than the
 * {@code redis_version} that Valkey freezes at {@code 7.2.4}; for a cluster
 * {@code cluster_size}, {@code slots_up} and {@code slots_fail}), the server's name
 * ({@code server}: {@code redis}, {@code valkey}), then the connection mode, the shared
 * connections by state, the dedicated pool (active, idle, waiting, max), the cluster
 * state and known nodes, and the servers that are unreachable. Never credentials or
 * addresses with credentials.
 * <p>
 * An event loop that the application blocks cannot read the check's reply either. A check
 * that times out while the {@link EventLoopWatchdog} reports a blocked loop stays
 * {@code UP}, with the blocked loops in its details: the client, not Redis, is at fault,
 * and a readiness probe must not take the application out of service for it.
 * <p>
 * Spring Boot logs a WARN with a stack trace for every failed check; this indicator logs
 * a change of state instead: one WARN with its cause in one line when Redis goes
 * {@code DOWN} (the stack trace at DEBUG), one INFO line when it is {@code UP} again.
 *
 * @since 0.1.0
 */
public class LettuceHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

	/**
	 * The default time to wait for Redis to answer.
	 */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	private static final Log logger = LogFactory.getLog(LettuceHealthIndicator.class);

	private final LettuceTuningConnectionFactory connectionFactory;

	private final Duration timeout;

	private final RedisCheck check;

	private final ThreadPoolExecutor executor;

	private final @Nullable OutageGuard outageGuard;

	private final AtomicReference<@Nullable CompletableFuture<RedisCheck.Result>> running = new AtomicReference<>();

	private final HealthTransitions transitions = new HealthTransitions(logger);

	/**
	 * Create an indicator that waits {@link #DEFAULT_TIMEOUT} for Redis.
	 * @param connectionFactory the connection factory
	 */
	public LettuceHealthIndicator(LettuceTuningConnectionFactory connectionFactory) {
		this(connectionFactory, DEFAULT_TIMEOUT, null);
	}

	/**
	 * Create an indicator that lists no unreachable servers.
	 * @param connectionFactory the connection factory
	 * @param timeout how long to wait for Redis to answer before reporting DOWN
	 */
	public LettuceHealthIndicator(LettuceTuningConnectionFactory connectionFactory, Duration timeout) {
		this(connectionFactory, timeout, null);
	}

	/**
	 * Create an indicator.
	 * @param connectionFactory the connection factory
	 * @param timeout how long to wait for Redis to answer before reporting DOWN
	 * @param outageGuard the guard whose unreachable servers the details list, if any
	 */
	public LettuceHealthIndicator(LettuceTuningConnectionFactory connectionFactory, Duration timeout,
			@Nullable OutageGuard outageGuard) {
		super("Redis health check failed");
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		Assert.isTrue(timeout != null && !timeout.isNegative() && !timeout.isZero(), "'timeout' must be positive");
		this.connectionFactory = connectionFactory;
		this.timeout = timeout;
		this.outageGuard = outageGuard;
		this.check = new RedisCheck(connectionFactory, timeout);
		this.executor = checkExecutor();
	}

	// One thread, a one-slot queue (a check submitted while the previous thread is
	// finishing), and no more: a hung server must not pile up threads or checks.
	private static ThreadPoolExecutor checkExecutor() {
		CustomizableThreadFactory threads = new CustomizableThreadFactory("lettuce-health-");
		threads.setDaemon(true);
		ThreadPoolExecutor executor = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1),
				threads);
		executor.allowCoreThreadTimeOut(true);
		return executor;
	}

	/**
	 * Return how long the indicator waits for Redis.
	 * @return the timeout
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Return the server as the last check found it, from {@code INFO server}.
	 * @return the server, or {@code null} before a check has read it, or when the user
	 * may not run {@code INFO}
	 */
	public @Nullable ServerIdentity serverIdentity() {
		return this.check.server();
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		LettuceHealthDetails.describe(this.connectionFactory, builder);
		describeOutages(builder);
		List<BlockedEventLoop> blocked = blockedLoops();
		CompletableFuture<RedisCheck.Result> result = startOrJoin();
		try {
			result.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS).applyTo(builder);
			this.transitions.up();
		}
		catch (TimeoutException ex) {
			// A loop blocked while the check waited is the likelier cause of the silence.
			blocked = blocked.isEmpty() ? blockedLoops() : blocked;
			timedOut(builder, blocked);
		}
		catch (ExecutionException ex) {
			down(builder, (ex.getCause() != null) ? ex.getCause() : ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			down(builder, ex);
		}
		describe(builder, blocked);
	}

	private void timedOut(Health.Builder builder, List<BlockedEventLoop> blocked) {
		if (!blocked.isEmpty()) {
			builder.up()
				.withDetail("check", "no answer within " + this.timeout.toMillis() + "ms while event loop "
						+ blocked.get(0).thread() + " was blocked by the application; Redis is not at fault");
			this.transitions.up();
			return;
		}
		String error = "Redis did not answer within " + this.timeout.toMillis() + "ms";
		builder.down().withDetail("error", error);
		this.transitions.down(error, null);
	}

	// Boot's down(Throwable) has its indicator log a WARN with the stack trace on every
	// check: the same detail, logged once per change of state instead.
	private void down(Health.Builder builder, Throwable failure) {
		String error = failure.getClass().getName() + ": " + failure.getMessage();
		builder.down().withDetail("error", error);
		this.transitions.down(error, failure);
	}

	private List<BlockedEventLoop> blockedLoops() {
		EventLoopWatchdog watchdog = (this.outageGuard != null) ? this.outageGuard.watchdog() : null;
		return (watchdog != null) ? watchdog.blockedNow() : List.of();
	}

	private static void describe(Health.Builder builder, List<BlockedEventLoop> blocked) {
		if (blocked.isEmpty()) {
			return;
		}
		List<Map<String, Object>> loops = new ArrayList<>();
		for (BlockedEventLoop loop : blocked) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("thread", loop.thread());
			details.put("since", loop.since().toString());
			details.put("for", loop.duration().toMillis() + "ms");
			details.put("at", loop.blockedAt());
			loops.add(details);
		}
		builder.withDetail("blockedEventLoops", loops);
	}

	private void describeOutages(Health.Builder builder) {
		if (this.outageGuard == null) {
			return;
		}
		List<Map<String, Object>> unreachable = new ArrayList<>();
		for (OutageGuard.Outage outage : this.outageGuard.outages()) {
			Map<String, Object> details = new LinkedHashMap<>();
			details.put("server", outage.server());
			details.put("since", outage.since().toString());
			details.put("for", outage.duration().toMillis() + "ms");
			if (outage.rejection() != null) {
				details.put("rejected", outage.rejection());
			}
			unreachable.add(details);
		}
		if (!unreachable.isEmpty()) {
			builder.withDetail("unreachable", unreachable);
		}
	}

	private CompletableFuture<RedisCheck.Result> startOrJoin() {
		CompletableFuture<RedisCheck.Result> current = this.running.get();
		if (current != null && !current.isDone()) {
			return current;
		}
		CompletableFuture<RedisCheck.Result> next = new CompletableFuture<>();
		if (!this.running.compareAndSet(current, next)) {
			CompletableFuture<RedisCheck.Result> other = this.running.get();
			return (other != null) ? other : next;
		}
		try {
			this.executor.execute(() -> run(next));
		}
		catch (RejectedExecutionException ex) {
			next.completeExceptionally(ex);
		}
		return next;
	}

	private void run(CompletableFuture<RedisCheck.Result> result) {
		try {
			result.complete(this.check.run());
		}
		catch (Throwable ex) {
			result.completeExceptionally(ex);
		}
	}

	/**
	 * Stop the check thread.
	 */
	@Override
	public void destroy() {
		this.executor.shutdownNow();
	}

}
