package io.github.lettucetuning.socket;

import java.io.IOException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.server.RedisServerLauncher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A host name that moves to another server while the first goes away, as a cloud failover
 * that keeps the endpoint's name does. {@code redis-primary.test} resolves through a
 * hosts file ({@code jdk.net.hosts.file}) to server A on 127.0.0.1; 8 threads write
 * through a Spring Boot context in a JVM of its own ({@link DnsMoveClient}); the file is
 * rewritten to point at server B on 127.0.0.2, same port, and A is stopped. With the
 * starter the writes reach B within the bound; stock Boot is shown with the same steps.
 */
@Timeout(240)
class DnsMoveIntegrationTests {

	// The starter's defaults: lettuce.tuning.dns.max-ttl (the hosts file is re-read at
	// most this late), the longest reconnect delay, and the fail-fast grace.
	private static final Duration MAX_TTL = Duration.ofSeconds(5);

	private static final Duration MAX_RECONNECT_DELAY = Duration.ofSeconds(1);

	private static final Duration GRACE = Duration.ofSeconds(1);

	// Room for a loaded 2-core machine: a connect and handshake, a scheduling delay.
	private static final Duration MARGIN = Duration.ofSeconds(3);

	// The JDK keeps a positive answer 30s (networkaddress.cache.ttl unset, no security
	// manager); Lettuce's reconnect delay grows to 30s.
	private static final Duration JDK_CACHE_TTL = Duration.ofSeconds(30);

	private static final Duration LETTUCE_MAX_RECONNECT_DELAY = Duration.ofSeconds(30);

	private static final Duration CLIENT_START = Duration.ofSeconds(90);

	private static final String CLIENT_NAME = "dns-move-starter";

	private final RedisServerLauncher launcher = new RedisServerLauncher();

	@TempDir
	Path directory;

	private HostsFileClient client;

	private RedisNode serverA;

	private RedisNode serverB;

	@BeforeEach
	void startServers() throws IOException {
		this.serverA = this.launcher.start(RedisServerConfig.defaults().withName("dns-a"));
		this.serverB = this.launcher.start(RedisServerConfig.defaults()
			.withName("dns-b")
			.withPort(this.serverA.port())
			.withBindAddress("127.0.0.2"));
		this.client = new HostsFileClient(this.directory);
		this.client.pointAt(this.serverA);
	}

	@AfterEach
	void stopEverything() {
		this.client.close();
		this.serverA.close();
		this.serverB.close();
	}

	@Test
	void withTheStarterWritesReachTheNewAddressWithinTheBoundAndNoCallerWaitsPastTheGrace() throws Exception {
		startClient("starter");
		awaitWritesOn(this.serverA, CLIENT_START);
		endPhase();
		long movedAt = move();
		Duration bound = MAX_TTL.plus(MAX_RECONNECT_DELAY).plus(MARGIN);
		Duration moved = Duration.ofNanos(awaitWritesOn(this.serverB, bound.plus(Duration.ofSeconds(30))) - movedAt);
		long keysOnB = dbSize(this.serverB);
		Thread.sleep(1000);
		Map<String, String> moving = endPhase();
		report("starter", moved, moving);
		assertThat(moved)
			.as("writes reach B after the move (bound = max-ttl %s + reconnect delay %s + margin %s); client %s",
					MAX_TTL, MAX_RECONNECT_DELAY, MARGIN, moving)
			.isLessThanOrEqualTo(bound);
		assertThat(dbSize(this.serverB)).as("writes keep landing on B").isGreaterThan(keysOnB);
		assertThat(Long.parseLong(moving.get("longest-wait-ms")))
			.as("no caller waits past the fail-fast grace %s + margin %s; client %s", GRACE, MARGIN, moving)
			.isLessThanOrEqualTo(GRACE.plus(MARGIN).toMillis());

		// The name stops resolving while B is up: reconnects fail on the resolver, and
		// callers fail after the grace instead of waiting for it
		this.client.pointNowhere();
		Thread.sleep(MAX_TTL.plusSeconds(1).toMillis());
		assertThat(Faults.killClients(this.serverB, CLIENT_NAME)).as("the client's connections to B").isPositive();
		Thread.sleep(3000);
		assertThat(this.serverB.countClients(CLIENT_NAME)).as("no connection while the name does not resolve").isZero();
		Map<String, String> unresolved = endPhase();
		report("starter, name not resolving", null, unresolved);
		assertThat(Long.parseLong(unresolved.get("failures"))).as("client %s", unresolved).isPositive();
		assertThat(Long.parseLong(unresolved.get("longest-wait-ms")))
			.as("no caller waits for the resolver past the grace %s + margin %s; client %s", GRACE, MARGIN, unresolved)
			.isLessThanOrEqualTo(GRACE.plus(MARGIN).toMillis());

		// And back: traffic resumes within the same bound
		long keysBefore = dbSize(this.serverB);
		this.client.pointAt(this.serverB);
		long restoredAt = System.nanoTime();
		await().atMost(bound.plus(Duration.ofSeconds(30)))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> dbSize(this.serverB) > keysBefore);
		Duration resumed = Duration.ofNanos(System.nanoTime() - restoredAt);
		Map<String, String> last = stopClient();
		report("starter, name back", resumed, last);
		assertThat(resumed).as("writes resume once the name resolves again; client %s", last)
			.isLessThanOrEqualTo(bound);
	}

	@Test
	void stockBootDoesNotReadTheJvmHostsFile() throws Exception {
		startClient("stock");
		this.client.awaitWriting();
		// Lettuce's Netty resolver reads /etc/hosts and asks DNS; neither knows the name
		Thread.sleep(5000);
		Map<String, String> result = stopClient();
		report("stock", null, result);
		assertThat(dbSize(this.serverA)).isZero();
		assertThat(result).containsEntry("successes", "0");
		assertThat(result.get("first-failure")).as("client %s", result)
			.contains(UnknownHostException.class.getName())
			.contains(DnsMoveClient.HOST);
	}

	@Test
	void stockBootWithTheJdkResolverMovesOnlyOnceTheJdkCacheExpired() throws Exception {
		startClient("stock-jdk-resolver");
		awaitWritesOn(this.serverA, CLIENT_START);
		long movedAt = move();
		long reachedB = awaitWritesOn(this.serverB,
				JDK_CACHE_TTL.plus(LETTUCE_MAX_RECONNECT_DELAY).plus(Duration.ofSeconds(15)));
		Duration moved = Duration.ofNanos(reachedB - movedAt);
		Map<String, String> result = stopClient();
		report("stock-jdk-resolver", moved, result);
		// The JDK cached the answer at the client's first lookup, after its JVM started
		Duration sinceClientStart = Duration.ofNanos(reachedB - this.client.startedAt());
		assertThat(sinceClientStart)
			.as("B is reached only after the JDK's cache expired; moved %s after the move", moved)
			.isGreaterThanOrEqualTo(JDK_CACHE_TTL);
		assertThat(moved).isLessThanOrEqualTo(JDK_CACHE_TTL.plus(LETTUCE_MAX_RECONNECT_DELAY).plus(MARGIN));
		assertThat(Long.parseLong(result.get("longest-wait-ms")))
			.as("callers wait while the stale answer is used; client %s", result)
			.isGreaterThan(GRACE.plus(MARGIN).toMillis());
	}

	// The numbers docs/cluster-and-network.md quotes, in the test report.
	private static void report(String setup, Duration moved, Map<String, String> result) {
		System.out.println("dns-move " + setup + ": writes reached B "
				+ ((moved != null) ? moved.toMillis() + " ms after the change" : "never") + "; client " + result);
	}

	// Points the name at B and stops A; returns when, in System.nanoTime().
	private long move() throws IOException {
		this.client.pointAt(this.serverB);
		this.serverA.stop();
		return System.nanoTime();
	}

	private void startClient(String setup) throws IOException {
		this.client.start(setup, this.serverA.port(), "dns");
	}

	private long awaitWritesOn(RedisNode server, Duration atMost) {
		return this.client.awaitWritesOn(server, atMost);
	}

	private static long dbSize(RedisNode server) {
		return HostsFileClient.dbSize(server);
	}

	private Map<String, String> endPhase() throws IOException {
		return this.client.endPhase();
	}

	private Map<String, String> stopClient() throws Exception {
		return this.client.stop();
	}

}
