package io.github.lettucetuning.autoconfigure;

import java.time.Duration;

import io.github.lettucetuning.connection.ConnectionMode;
import io.github.lettucetuning.connection.SelectionPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of lettuce-tuning. Every {@code spring.data.redis.*} property
 * keeps its meaning; these add what Spring Boot does not offer.
 *
 * @author lettuce-tuning
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

	private final Pool pool = new Pool();

	private final Resources resources = new Resources();

	private final Timer timer = new Timer();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Connection getConnection() {
		return this.connection;
	}

	public Pool getPool() {
		return this.pool;
	}

	public Resources getResources() {
		return this.resources;
	}

	public Timer getTimer() {
		return this.timer;
	}

	// Fails startup before anything connects; the failure analysis names the property.
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
		 * Whether to open the shared connections at startup instead of on first use. Startup
		 * then fails fast when Redis cannot be reached.
		 */
		private boolean eagerInitialization;

		private final Multi multi = new Multi();

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

		public Multi getMulti() {
			return this.multi;
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
		 * 'thread-affinity' (a thread keeps its connection, so its commands stay in order)
		 * or 'least-in-flight'.
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
	 * sizes come from 'spring.data.redis.lettuce.pool.*'.
	 */
	public static class Pool {

		/**
		 * How long a caller waits for a dedicated connection when the pool is exhausted,
		 * unless 'spring.data.redis.lettuce.pool.max-wait' is set to a positive value.
		 * Spring Boot's default waits forever.
		 */
		private Duration maxWait = Duration.ofSeconds(2);

		/**
		 * Whether to open 'spring.data.redis.lettuce.pool.min-idle' dedicated connections
		 * at startup instead of on first use.
		 */
		private boolean prewarm;

		public Duration getMaxWait() {
			return this.maxWait;
		}

		public void setMaxWait(Duration maxWait) {
			this.maxWait = maxWait;
		}

		public boolean isPrewarm() {
			return this.prewarm;
		}

		public void setPrewarm(boolean prewarm) {
			this.prewarm = prewarm;
		}

	}

	/**
	 * Threads of the Lettuce client resources.
	 */
	public static class Resources {

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
