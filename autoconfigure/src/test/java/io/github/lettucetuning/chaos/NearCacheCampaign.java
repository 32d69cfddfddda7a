package io.github.lettucetuning.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.autoconfigure.LettuceTuningAutoConfiguration;
import io.github.lettucetuning.autoconfigure.nearcache.LettuceTuningNearCacheAutoConfiguration;
import io.github.lettucetuning.nearcache.InvalidationTracking;
import io.github.lettucetuning.nearcache.NearCacheWriter;
import io.github.lettucetuning.testsupport.chaos.FaultInjector;
import io.github.lettucetuning.testsupport.chaos.FaultKind;
import io.github.lettucetuning.testsupport.chaos.FaultSchedule;
import io.github.lettucetuning.testsupport.chaos.InjectedFault;
import io.github.lettucetuning.testsupport.chaos.Invariants;
import io.github.lettucetuning.testsupport.chaos.ReplicationWatch;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.topology.TopologyKind;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;
import org.springframework.data.redis.serializer.RedisSerializer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The near-cache checker (issue 40) under faults: two application contexts with the near
 * cache on, {@code a} (shared connection mode) writing through the cache and both reading
 * through it, and a writer outside them (a plain Lettuce client), while a fault campaign
 * schedule, or repeated {@code CLIENT KILL}s of the tracking connections, run. Every read
 * is then checked by {@link NearCacheCheck}: none may return a version older than one
 * Redis acknowledged more than {@link NearCacheCheck#BOUND} before the read started. In
 * the windows without a fault, at least {@value #MIN_HIT_SHARE} of the reads must have
 * been served from memory ({@link NearCacheHits}): a checker over a bypassed near cache
 * would prove nothing.
 * <p>
 * The topology only matters through {@link ChaosServers}: the near-cache auto-
 * configuration, the plain client and the samples work the same on a server, behind
 * Sentinel and on a cluster. {@code -Dchaos.seed=N} and {@code -Dchaos.minutes=M} replay
 * or lengthen a schedule, as for the campaign; the report goes to
 * {@code target/chaos/near-cache-<topology>.md}.
 */
final class NearCacheCampaign {

	static final double MIN_HIT_SHARE = 0.5;

	private static final int READERS_PER_APP = 2;

	private static final Duration TAIL = Duration.ofSeconds(5);

	private static final Duration STARTUP = Duration.ofSeconds(60);

	private static final Duration TRACKING_ON = Duration.ofSeconds(10);

	private static final Duration OUTSIDE_TIMEOUT = Duration.ofSeconds(2);

	// Enough for the checks to mean something in a 30 s run on a loaded machine
	private static final long MIN_ACKNOWLEDGED_WRITES = 100;

	private static final long MIN_QUIET_READS = 1000;

	private NearCacheCampaign() {
	}

	/**
	 * Run the checker through a topology's fault schedule.
	 * @param servers the servers
	 * @param ciSeed the seed run unless {@code chaos.seed} names another
	 * @param testClass the test, for the replay command
	 * @throws Exception if the run fails
	 */
	static void underFaults(ChaosServers servers, long ciSeed, Class<?> testClass) throws Exception {
		long seed = seed(ciSeed);
		FaultSchedule schedule = FaultSchedule.draw(seed, length(), FaultKind.forTopology(servers.topology()));
		new Run(servers, seed, testClass, "faults", schedule.describe())
			.execute((origin) -> inject(servers, schedule, origin));
	}

	/**
	 * Run the checker while the tracking connections are killed again and again, and
	 * nothing else goes wrong.
	 * @param servers the servers
	 * @param ciSeed the seed of the kills' moments and victims
	 * @param length how long the kills go on
	 * @param testClass the test, for the replay command
	 * @throws Exception if the run fails
	 */
	static void trackingKills(ChaosServers servers, long ciSeed, Duration length, Class<?> testClass) throws Exception {
		long seed = seed(ciSeed);
		new Run(servers, seed, testClass, "tracking-kills",
				"CLIENT KILL of a " + InvalidationTracking.CLIENT_NAME + " connection every 0.3 to 1.5 s for "
						+ length.toSeconds() + " s, seed " + seed)
			.execute((origin) -> killTracking(servers, seed, length));
	}

	private static List<NearCacheCheck.Disruption> inject(ChaosServers servers, FaultSchedule schedule, long origin)
			throws Exception {
		try (FaultInjector injector = servers.injector()) {
			injector.start(schedule, origin);
			try {
				injector.awaitDone(schedule.length().plus(Duration.ofSeconds(60)));
			}
			catch (TimeoutException ex) {
				throw new IllegalStateException("The injector fell behind the schedule: " + injector.injected(), ex);
			}
			Thread.sleep(TAIL.toMillis());
			List<NearCacheCheck.Disruption> disruptions = new ArrayList<>();
			for (InjectedFault fault : injector.injected()) {
				if (!fault.skipped()) {
					disruptions.add(new NearCacheCheck.Disruption(fault.toString(), fault.injectedNanos(),
							fault.healedNanos(), fault.losesWrites()));
				}
			}
			return disruptions;
		}
	}

	private static List<NearCacheCheck.Disruption> killTracking(ChaosServers servers, long seed, Duration length) {
		SplittableRandom random = new SplittableRandom(seed);
		List<NearCacheCheck.Disruption> kills = new ArrayList<>();
		long end = System.nanoTime() + length.toNanos();
		while (System.nanoTime() - end < 0) {
			Traffic.sleep(300 + random.nextInt(1200));
			List<Victim> victims = new ArrayList<>();
			for (RedisNode node : servers.dataNodes()) {
				for (ClientInfo client : node.clientList()) {
					if (client.name().equals(InvalidationTracking.CLIENT_NAME)) {
						victims.add(new Victim(node, client));
					}
				}
			}
			if (victims.isEmpty()) {
				continue;
			}
			Victim victim = victims.get(random.nextInt(victims.size()));
			long at = System.nanoTime();
			victim.node().command("CLIENT", "KILL", "ID", String.valueOf(victim.client().id()));
			kills.add(new NearCacheCheck.Disruption("CLIENT KILL ID " + victim.client().id() + " ("
					+ InvalidationTracking.CLIENT_NAME + " on " + victim.node().port() + ")", at, System.nanoTime(),
					false));
		}
		Traffic.sleep(TAIL.toMillis());
		return kills;
	}

	private static long seed(long ciSeed) {
		String seed = System.getProperty("chaos.seed", "").trim();
		return seed.isBlank() ? ciSeed : Long.parseLong(seed.split(",")[0].trim());
	}

	private static Duration length() {
		String minutes = System.getProperty("chaos.minutes", "").trim();
		return minutes.isBlank() ? Duration.ofSeconds(FaultCampaign.CI_SECONDS)
				: Duration.ofSeconds(Math.round(Double.parseDouble(minutes) * 60));
	}

	/**
	 * What disrupts a run, from its origin until it is over.
	 */
	@FunctionalInterface
	private interface Disruptor {

		List<NearCacheCheck.Disruption> run(long originNanos) throws Exception;

	}

	private record Victim(RedisNode node, ClientInfo client) {

	}

	/**
	 * One run of the checker.
	 */
	private static final class Run {

		private final ChaosServers servers;

		private final long seed;

		private final Class<?> testClass;

		private final String kind;

		private final String description;

		private final NearCacheCheck check = new NearCacheCheck();

		Run(ChaosServers servers, long seed, Class<?> testClass, String kind, String description) {
			this.servers = servers;
			this.seed = seed;
			this.testClass = testClass;
			this.kind = kind;
			this.description = description;
		}

		void execute(Disruptor disruptor) throws Exception {
			String topology = this.servers.topology().name().toLowerCase(Locale.ROOT);
			System.out.println("Near-cache checker, " + topology + ", " + this.kind + ": " + this.description);
			this.servers.flush();
			NearCacheTraffic traffic = new NearCacheTraffic(this.check, this.seed);
			ClientResources resources = DefaultClientResources.create();
			App writing = new App("a", "shared");
			App reading = new App("b", "multi");
			List<NearCacheCheck.Disruption> disruptions;
			Invariants.Replication replication = Invariants.Replication.NONE;
			NearCacheHits.Share share;
			long origin;
			List<String> leaks = new ArrayList<>();
			try (OutsideClient outside = OutsideClient.connect(resources, this.servers)) {
				traffic.populate(outside.commands());
				writing.start();
				reading.start();
				Cache writingCache = writing.awaitCache();
				Cache readingCache = reading.awaitCache();
				ReplicationWatch watch = (this.servers.topology() != TopologyKind.STANDALONE)
						? ReplicationWatch.start(this.servers.dataNodes(), Duration.ofMillis(100)) : null;
				NearCacheHits hits = NearCacheHits.start(this.servers.dataNodes());
				long trafficStart = System.nanoTime();
				traffic.startReaders(writing.name, writingCache, READERS_PER_APP);
				traffic.startReaders(reading.name, readingCache, READERS_PER_APP);
				traffic.startApplicationWriter(writingCache);
				traffic.startOutsideWriter(outside.commands());
				origin = System.nanoTime();
				try {
					disruptions = disruptor.run(origin);
				}
				finally {
					traffic.stop(CampaignRun.COMMAND_TIMEOUT.plus(Duration.ofSeconds(10)));
					hits.close();
					if (watch != null) {
						watch.close();
						replication = watch;
					}
				}
				long trafficEnd = System.nanoTime();
				share = hits.share(this.check.reads(), disruptions, trafficStart, trafficEnd);
			}
			finally {
				writing.close();
				reading.close();
				resources.shutdown(0, 2, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
				this.servers.recover();
			}
			leaks.addAll(trackingConnectionsLeft());
			NearCacheCheck.Verdict verdict = this.check.check(disruptions, replication, origin);
			String summary = summary(verdict, share, traffic, writing, reading, disruptions);
			Path report = report(topology, summary);
			System.out.println(summary + "Near-cache report: " + report.toAbsolutePath());
			String replay = "replay with: ./mvnw -B -o -pl autoconfigure verify -Dit.test="
					+ this.testClass.getSimpleName() + " -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false"
					+ " -Dchaos.seed=" + this.seed + "\n" + this.description + "\n";
			assertThat(verdict.holds()).as("stale or phantom reads through the near cache, %s%s", replay, summary)
				.isTrue();
			assertThat(this.check.writes().stream().filter(NearCacheCheck.Write::acknowledged).count())
				.as("acknowledged writes, %s", summary)
				.isGreaterThanOrEqualTo(MIN_ACKNOWLEDGED_WRITES);
			assertThat(share.appReads()).as("reads in the windows without a fault, %s", summary)
				.isGreaterThanOrEqualTo(MIN_QUIET_READS);
			assertThat(share.hits()).as("share of reads served from memory without a fault, %s", summary)
				.isGreaterThanOrEqualTo(MIN_HIT_SHARE);
			assertThat(leaks).as("tracking connections left after the contexts closed").isEmpty();
		}

		private List<String> trackingConnectionsLeft() {
			List<String> left = new ArrayList<>();
			long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
			do {
				left.clear();
				for (RedisNode node : this.servers.allNodes()) {
					if (node.isAlive() && node.countClients(InvalidationTracking.CLIENT_NAME) > 0) {
						left.add(InvalidationTracking.CLIENT_NAME + " on " + node.port());
					}
				}
				if (left.isEmpty()) {
					return left;
				}
				Traffic.sleep(100);
			}
			while (System.nanoTime() - deadline < 0);
			return left;
		}

		private String summary(NearCacheCheck.Verdict verdict, NearCacheHits.Share share, NearCacheTraffic traffic,
				App writing, App reading, List<NearCacheCheck.Disruption> disruptions) {
			long acknowledged = this.check.writes().stream().filter(NearCacheCheck.Write::acknowledged).count();
			StringBuilder text = new StringBuilder();
			text.append(String.format(Locale.ROOT,
					"writes %,d (%,d acknowledged, %d keys retired); disruptions %d; tracking interruptions a %d, b %d;"
							+ " without a fault: %,d reads in %.1f s, %,d reached Redis, %.1f %% served from memory%n",
					this.check.writes().size(), acknowledged, traffic.retiredKeys(), disruptions.size(),
					writing.interruptions, reading.interruptions, share.appReads(), share.quiet().toMillis() / 1000.0,
					share.redisReads(), share.hits() * 100));
			text.append(verdict.describe());
			return text.toString();
		}

		private Path report(String topology, String summary) throws IOException {
			Path report = Path.of("target", "chaos", "near-cache-" + topology + "-" + this.kind + ".md");
			Files.createDirectories(report.getParent());
			Files.writeString(report, "# Near-cache checker, " + topology + ", " + this.kind + "\n\n```\n"
					+ this.description + "\n" + summary + "```\n");
			return report;
		}

		/**
		 * One application context with the near cache, open on a thread of its own from
		 * its start until the run is over.
		 */
		private final class App implements AutoCloseable {

			private final String name;

			private final String mode;

			private final CountDownLatch ready = new CountDownLatch(1);

			private final CountDownLatch stop = new CountDownLatch(1);

			private final AtomicReference<@Nullable Cache> cache = new AtomicReference<>();

			private final AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();

			private final Thread thread;

			private long interruptions;

			App(String name, String mode) {
				this.name = name;
				this.mode = mode;
				this.thread = new Thread(this::runContext, "nc-context-" + name);
				this.thread.setDaemon(true);
			}

			void start() {
				this.thread.start();
			}

			Cache awaitCache() throws InterruptedException {
				if (!this.ready.await(STARTUP.toMillis(), TimeUnit.MILLISECONDS)) {
					throw new IllegalStateException("Context " + this.name + " not ready within " + STARTUP);
				}
				Cache current = this.cache.get();
				if (current == null) {
					throw new IllegalStateException("Context " + this.name + " failed", this.failure.get());
				}
				return current;
			}

			private void runContext() {
				try {
					new ApplicationContextRunner()
						.withConfiguration(AutoConfigurations.of(LettuceTuningAutoConfiguration.class,
								DataRedisAutoConfiguration.class, CacheAutoConfiguration.class,
								LettuceTuningNearCacheAutoConfiguration.class))
						.withUserConfiguration(Caching.class)
						.withPropertyValues(Run.this.servers.properties())
						.withPropertyValues("lettuce.tuning.near-cache.caches=" + NearCacheTraffic.CACHE,
								"lettuce.tuning.connection.mode=" + this.mode,
								"spring.data.redis.client-name=nc-" + this.name,
								"spring.data.redis.timeout=" + CampaignRun.COMMAND_TIMEOUT.toMillis() + "ms")
						.run(this::inContext);
				}
				catch (Throwable ex) {
					this.failure.set(ex);
				}
				finally {
					this.ready.countDown();
				}
			}

			private void inContext(AssertableApplicationContext context) throws Exception {
				if (context.getStartupFailure() != null) {
					throw new IllegalStateException(context.getStartupFailure());
				}
				Cache nearCache = context.getBean(CacheManager.class).getCache(NearCacheTraffic.CACHE);
				InvalidationTracking tracking = ((NearCacheWriter) nearCache.getNativeCache()).tracking();
				long deadline = System.nanoTime() + TRACKING_ON.toNanos();
				// The first read opens the tracking connection
				while (!tracking.isTracking()) {
					nearCache.get("warm-up");
					if (System.nanoTime() - deadline > 0) {
						throw new IllegalStateException("Tracking not on within " + TRACKING_ON + ": "
								+ tracking.status() + ", " + tracking.unsupportedReason());
					}
					Traffic.sleep(50);
				}
				this.cache.set(nearCache);
				this.ready.countDown();
				this.stop.await();
				this.interruptions = tracking.interruptions();
			}

			@Override
			public void close() throws InterruptedException {
				this.stop.countDown();
				this.thread.join(STARTUP.toMillis());
			}

		}

	}

	/**
	 * The writer outside the applications: a plain Lettuce client of its own, with a
	 * short command timeout.
	 */
	private static final class OutsideClient implements AutoCloseable {

		private final AbstractRedisClient client;

		private final StatefulConnection<String, String> connection;

		private final RedisClusterCommands<String, String> commands;

		private OutsideClient(AbstractRedisClient client, StatefulConnection<String, String> connection,
				RedisClusterCommands<String, String> commands) {
			this.client = client;
			this.connection = connection;
			this.commands = commands;
		}

		static OutsideClient connect(ClientResources resources, ChaosServers servers) {
			List<RedisURI> uris = servers.clientUris();
			uris.forEach((uri) -> uri.setTimeout(OUTSIDE_TIMEOUT));
			if (servers.topology() == TopologyKind.CLUSTER) {
				RedisClusterClient client = RedisClusterClient.create(resources, uris);
				StatefulRedisClusterConnection<String, String> connection = client.connect();
				return new OutsideClient(client, connection, connection.sync());
			}
			RedisClient client = RedisClient.create(resources, uris.get(0));
			StatefulRedisConnection<String, String> connection = client.connect();
			return new OutsideClient(client, connection, connection.sync());
		}

		RedisClusterCommands<String, String> commands() {
			return this.commands;
		}

		@Override
		public void close() {
			this.connection.close();
			this.client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableCaching
	static class Caching {

		@Bean
		RedisCacheConfiguration redisCacheConfiguration() {
			return RedisCacheConfiguration.defaultCacheConfig()
				.serializeValuesWith(SerializationPair.fromSerializer(RedisSerializer.string()));
		}

	}

}
