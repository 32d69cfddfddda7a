package io.github.lettucetuning.health;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.connection.LettuceTuningConnectionFactory;
import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.state.ClientStateReader;
import io.github.lettucetuning.state.ServerIdentity;
import io.lettuce.core.RedisCommandTimeoutException;
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
 * that times out (the caller's wait or, for a caller that joined a check under way, the
 * check's own) while the {@link ClientState} reports a blocked loop asks Redis by another
 * route, a {@code PING} on a plain socket of the calling thread's ({@link RedisProbe}):
 * if Redis answers, or cannot be asked, the health stays {@code UP} with the blocked
 * loops in its details, because the client, not Redis, is at fault and a readiness probe
 * must not take the application out of service for it; if Redis does not answer, it is
 * {@code DOWN} for Redis. A loop blocked for longer than the command timeout
 * ({@code spring.data.redis.timeout}, Spring Data's 60 s if unset) is another matter:
 * every command on its connections has failed by then, and it may never return (a
 * deadlock, an endless callback). The health is then {@code DOWN} at once, naming the
 * loop, its frame and for how long, so that a liveness probe can restart the application.
 * <p>
 * Everything but the check itself is read from a {@link ClientStateReader}, the one the
 * meters and the {@code lettuce} endpoint read too, and who is at fault is what its
 * {@link ClientState#fault()} says.
 * <p>
 * Spring Boot logs a WARN with a stack trace for every failed check; this indicator logs
 * a change of state instead: one WARN with its cause in one line when Redis goes
 * {@code DOWN} (the stack trace at DEBUG), one INFO line when it is {@code UP} again.
 *
 * @since 0.1.0
 */
// Works around Boot's Redis health waiting out the command timeout:
// docs/upstream.md#bounded-redis-health
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

	private final ClientStateReader state;

	private final AtomicReference<@Nullable CompletableFuture<RedisCheck.Result>> running = new AtomicReference<>();

	private final HealthTransitions transitions = new HealthTransitions(logger);

	private final RedisProbe probe;

	private final AtomicReference<@Nullable CompletableFuture<RedisProbe.Outcome>> probing = new AtomicReference<>();

	/**
	 * Create an indicator that waits {@link #DEFAULT_TIMEOUT} for Redis.
	 * @param connectionFactory the connection factory
	 */
	public LettuceHealthIndicator(LettuceTuningConnectionFactory connectionFactory) {
		this(connectionFactory, DEFAULT_TIMEOUT);
	}

	/**
	 * Create an indicator that reads what the connection factory alone tells: no
	 * unreachable servers, no blocked loops.
	 * @param connectionFactory the connection factory
	 * @param timeout how long to wait for Redis to answer before reporting DOWN
	 */
	public LettuceHealthIndicator(LettuceTuningConnectionFactory connectionFactory, Duration timeout) {
		this(connectionFactory, timeout, ClientStateReader.of(connectionFactory));
	}

	/**
	 * Create an indicator.
	 * @param connectionFactory the connection factory, which the check goes through
	 * @param timeout how long to wait for Redis to answer before reporting DOWN
	 * @param state the reader of the running client, for everything but the check
	 */
	public LettuceHealthIndicator(LettuceTuningConnectionFactory connectionFactory, Duration timeout,
			ClientStateReader state) {
		super("Redis health check failed");
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		Assert.isTrue(timeout != null && !timeout.isNegative() && !timeout.isZero(), "'timeout' must be positive");
		Assert.notNull(state, "'state' must not be null");
		this.connectionFactory = connectionFactory;
		this.timeout = timeout;
		this.state = state;
		this.check = new RedisCheck(connectionFactory, timeout);
		this.probe = new RedisProbe(connectionFactory);
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
		ClientState state = this.state.read();
		LettuceHealthDetails.describe(state, builder);
		List<ClientState.BlockedLoop> blocked = state.blockedLoops();
		if (!stuck(builder, state)) {
			blocked = check(builder, state);
		}
		LettuceHealthDetails.describe(builder, blocked);
	}

	// A loop blocked past the command timeout: the client cannot serve commands,
	// whatever Redis does, and a check would only wait on the loop too.
	private boolean stuck(Health.Builder builder, ClientState state) {
		ClientState.BlockedLoop loop = state.stuckLoop();
		if (state.fault() != ClientState.Fault.EVENT_LOOP_STUCK || loop == null) {
			return false;
		}
		String error = "Lettuce event loop " + loop.thread() + " has been blocked for " + seconds(loop.duration())
				+ " at " + loop.blockedAt() + ", longer than the command timeout (" + seconds(state.commandTimeout())
				+ ", spring.data.redis.timeout): every command on its "
				+ "connections times out until it returns. The application blocks it, not Redis";
		builder.down().withDetail("error", error);
		this.transitions.down(error, null);
		return true;
	}

	private List<ClientState.BlockedLoop> check(Health.Builder builder, ClientState state) {
		List<ClientState.BlockedLoop> blocked = state.blockedLoops();
		CompletableFuture<RedisCheck.Result> result = startOrJoin();
		try {
			result.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS).applyTo(builder);
			this.transitions.up();
			return blocked;
		}
		catch (TimeoutException ex) {
			return timedOut(builder, state);
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			// A check joined late times out on its own before this caller does: the same
			// silence, judged the same way.
			if (cause instanceof TimeoutException || cause instanceof RedisCommandTimeoutException) {
				return timedOut(builder, state);
			}
			down(builder, cause);
			return blocked;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			down(builder, ex);
			return blocked;
		}
	}

	// A loop blocked while the check waited is the likelier cause of the silence, unless
	// Redis does not answer a separate connection either.
	private List<ClientState.BlockedLoop> timedOut(Health.Builder builder, ClientState before) {
		int inWindow = this.state.read().connectionsInMaintenanceWindow();
		if (inWindow > 0) {
			builder.up()
				.withDetail("check",
						"no answer within " + this.timeout.toMillis() + "ms while " + inWindow
								+ " connections are in a maintenance window the server announced; Lettuce relaxes its "
								+ "timeouts until the server announces its end");
			this.transitions.up();
			return before.blockedLoops();
		}
		ClientState soon = this.state.readSoon();
		ClientState judged = soon.blockedLoops().isEmpty() ? before : soon;
		List<ClientState.BlockedLoop> blocked = judged.blockedLoops();
		if (blocked.isEmpty()) {
			String error = "Redis did not answer within " + this.timeout.toMillis() + "ms";
			builder.down().withDetail("error", error);
			this.transitions.down(error, null);
			return blocked;
		}
		if (stuck(builder, judged)) {
			return blocked;
		}
		RedisProbe.Outcome probe = probe();
		String loop = blocked.get(0).thread();
		if (probe.state() == RedisProbe.State.SILENT) {
			String error = "Redis did not answer within " + this.timeout.toMillis()
					+ "ms, nor a PING on a separate connection to " + probe.about() + ", while event loop " + loop
					+ " was blocked: Redis is at fault";
			builder.down().withDetail("error", error);
			this.transitions.down(error, null);
			return blocked;
		}
		String check = "no answer within " + this.timeout.toMillis() + "ms while event loop " + loop
				+ " was blocked by the application; "
				+ ((probe.state() == RedisProbe.State.ALIVE)
						? "Redis answered a PING on a separate connection (" + probe.about() + "): it is not at fault"
						: "Redis was not asked on a separate connection (" + probe.about() + ")");
		builder.up().withDetail("check", check);
		this.transitions.up();
		return blocked;
	}

	// One probe at a time: callers that come while it runs share its outcome.
	private RedisProbe.Outcome probe() {
		CompletableFuture<RedisProbe.Outcome> current = this.probing.get();
		if (current == null || current.isDone()) {
			CompletableFuture<RedisProbe.Outcome> next = new CompletableFuture<>();
			if (this.probing.compareAndSet(current, next)) {
				try {
					next.complete(this.probe.ping(this.timeout));
				}
				catch (RuntimeException ex) {
					next.complete(RedisProbe.Outcome.unknown(ex.toString()));
				}
				return next.join();
			}
			current = this.probing.get();
		}
		try {
			return (current != null) ? current.get(this.timeout.toNanos(), TimeUnit.NANOSECONDS)
					: RedisProbe.Outcome.unknown("no probe");
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return RedisProbe.Outcome.unknown("interrupted");
		}
		catch (ExecutionException | TimeoutException ex) {
			return RedisProbe.Outcome.silent("the probe's servers (" + ex + ")");
		}
	}

	// Boot's down(Throwable) has its indicator log a WARN with the stack trace on every
	// check: the same detail, logged once per change of state instead.
	private void down(Health.Builder builder, Throwable failure) {
		String error = failure.getClass().getName() + ": " + failure.getMessage();
		builder.down().withDetail("error", error);
		this.transitions.down(error, failure);
	}

	private static String seconds(Duration duration) {
		return String.format(Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
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
