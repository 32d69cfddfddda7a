package io.github.lettucetuning.advice;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Effective configurations for tests: {@link #recommended()} draws no advice, and its
 * builder methods change one part each.
 */
final class Configurations {

	private Configurations() {
	}

	static Builder recommended() {
		Builder builder = new Builder();
		builder.connections = new EffectiveConfiguration.Connections("shared", 1, null, true, false);
		builder.commands = new EffectiveConfiguration.Commands(Duration.ofSeconds(2), true);
		builder.threads = new EffectiveConfiguration.Threads(2, 2);
		builder.timer = new EffectiveConfiguration.Timer("wheel", Duration.ofMillis(10), 8192, 1_000_000L,
				"lettuce-tuning");
		builder.socket = socket("epoll", true, true);
		builder.pool = new EffectiveConfiguration.Pool(8, 8, 0, Duration.ofSeconds(2));
		builder.health = new EffectiveConfiguration.Health(true, Duration.ofSeconds(2), false);
		return builder;
	}

	static EffectiveConfiguration.Socket socket(String transport, boolean extendedKeepAlive, boolean tcpUserTimeout) {
		Duration probe = extendedKeepAlive ? Duration.ofSeconds(13) : null;
		return new EffectiveConfiguration.Socket(transport, !"nio".equals(transport), Duration.ofSeconds(10),
				new EffectiveConfiguration.KeepAlive(true, extendedKeepAlive, probe, probe,
						extendedKeepAlive ? 3 : null),
				new EffectiveConfiguration.TcpUserTimeout(tcpUserTimeout,
						tcpUserTimeout ? Duration.ofSeconds(52) : null),
				null, 256, new EffectiveConfiguration.Dns("lettuce-tuning", Duration.ofSeconds(5), "platform"), null);
	}

	static EffectiveConfiguration.Cluster cluster(boolean periodicRefresh) {
		return new EffectiveConfiguration.Cluster(periodicRefresh, Duration.ofSeconds(60),
				List.of("ask-redirect", "moved-redirect"), Duration.ofSeconds(5), true, true, false, 5);
	}

	/**
	 * Builds an {@link EffectiveConfiguration} one part at a time.
	 */
	static final class Builder {

		private EffectiveConfiguration.Connections connections;

		private EffectiveConfiguration.Commands commands;

		private EffectiveConfiguration.Threads threads;

		private EffectiveConfiguration.Timer timer;

		private EffectiveConfiguration.Socket socket;

		private EffectiveConfiguration.@Nullable Cluster cluster;

		private EffectiveConfiguration.@Nullable Pool pool;

		private EffectiveConfiguration.Health health;

		Builder connections(EffectiveConfiguration.Connections connections) {
			this.connections = connections;
			return this;
		}

		Builder commands(EffectiveConfiguration.Commands commands) {
			this.commands = commands;
			return this;
		}

		Builder commandTimeout(Duration timeout) {
			return commands(new EffectiveConfiguration.Commands(timeout, true));
		}

		Builder threads(EffectiveConfiguration.Threads threads) {
			this.threads = threads;
			return this;
		}

		Builder timer(EffectiveConfiguration.Timer timer) {
			this.timer = timer;
			return this;
		}

		Builder socket(EffectiveConfiguration.Socket socket) {
			this.socket = socket;
			return this;
		}

		Builder cluster(EffectiveConfiguration.@Nullable Cluster cluster) {
			this.cluster = cluster;
			return this;
		}

		Builder pool(EffectiveConfiguration.@Nullable Pool pool) {
			this.pool = pool;
			return this;
		}

		Builder health(EffectiveConfiguration.Health health) {
			this.health = health;
			return this;
		}

		EffectiveConfiguration build() {
			return new EffectiveConfiguration(this.connections, this.commands, this.threads, this.timer, this.socket,
					this.cluster, this.pool, this.health, new EffectiveConfiguration.Resilience(true,
							Duration.ofSeconds(1), true, Duration.ofSeconds(2), 100_000),
					null);
		}

	}

}
