package io.github.lettucetuning.resilience;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.lettucetuning.socket.HostsFileClient;
import io.github.lettucetuning.testsupport.server.Await;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.server.RedisServerLauncher;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A managed failover that demotes the old primary in place, as ElastiCache, Azure Cache
 * and Memorystore do. Server A on 127.0.0.2 is the primary and B on 127.0.0.3 its
 * replica; {@value HostsFileClient#HOST} resolves to A through a hosts file, and 8
 * threads of an application in a JVM of its own run SET/GET pairs on it. The failover:
 * writes paused on A until B has them all, B promoted, the name moved to B, A made B's
 * replica ({@code REPLICAOF}) and unpaused. A keeps its client connections, so with stock
 * Boot every write keeps failing with {@code READONLY}; with the starter writes reach B
 * within 2 s, no connection stays on A, and every write that returned OK is on B.
 */
@Timeout(240)
class RoleChangeIntegrationTests {

	// Writes succeed again within this long of the demotion (the bound).
	private static final Duration RECOVERY_BOUND = Duration.ofSeconds(2);

	// No call takes longer: the writes paused during the failover, plus room for a
	// loaded 2-core machine.
	private static final Duration CALL_BOUND = Duration.ofSeconds(5);

	private static final Duration AFTER_DEMOTION = Duration.ofSeconds(5);

	private static final Duration SERVER_TIMEOUT = Duration.ofSeconds(30);

	private static final String CLIENT_NAME = "dns-move-starter";

	private final RedisServerLauncher launcher = new RedisServerLauncher();

	@TempDir
	Path directory;

	private HostsFileClient client;

	private RedisNode serverA;

	private RedisNode serverB;

	@BeforeEach
	void startServers() throws IOException {
		this.serverA = this.launcher
			.start(RedisServerConfig.defaults().withName("role-a").withBindAddress("127.0.0.2"));
		this.serverB = this.launcher.start(RedisServerConfig.defaults()
			.withName("role-b")
			.withPort(this.serverA.port())
			.withBindAddress("127.0.0.3"));
		replicate(this.serverB, this.serverA);
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
	void withTheStarterWritesReachThePromotedReplicaWithinTwoSecondsOfTheDemotion() throws Exception {
		startWriting("starter");
		assertThat(this.serverA.countClients(CLIENT_NAME)).as("the client's connections to A").isPositive();
		long demotedAt = failover();
		Thread.sleep(AFTER_DEMOTION.toMillis());
		Map<String, String> moving = this.client.endPhase();
		long leftOnA = this.serverA.countClients(CLIENT_NAME);
		long onB = this.serverB.countClients(CLIENT_NAME);
		Map<String, String> last = this.client.stop();
		List<String> missing = missingOn(this.serverB, this.client.acked());
		Duration recovered = recovery(moving, demotedAt);
		report("starter", recovered, moving, missing);
		assertThat(recovered).as("writes succeed again after the demotion; client %s", moving)
			.isNotNull()
			.isLessThanOrEqualTo(RECOVERY_BOUND);
		assertThat(leftOnA).as("connections of the application left on the demoted A").isZero();
		assertThat(onB).as("connections of the application on B").isPositive();
		assertThat(missing).as("writes that returned OK and are not on B").isEmpty();
		assertThat(Long.parseLong(moving.get("longest-wait-ms"))).as("longest call; client %s", moving)
			.isLessThanOrEqualTo(CALL_BOUND.toMillis());
		assertThat(Long.parseLong(last.get("failures"))).as("failures once moved; client %s", last).isZero();
	}

	// Stock Boot's resolver does not read jdk.net.hosts.file, so it is given the JDK's
	// (DnsMoveIntegrationTests); nothing resolves the name again anyway: the connection
	// stays open.
	@Test
	void stockBootKeepsFailingWithReadOnlyOnTheDemotedPrimary() throws Exception {
		startWriting("stock-jdk-resolver");
		long demotedAt = failover();
		Thread.sleep(AFTER_DEMOTION.toMillis());
		Map<String, String> moving = this.client.endPhase();
		Thread.sleep(1000);
		Map<String, String> last = this.client.stop();
		List<String> missing = missingOn(this.serverB, this.client.acked());
		report("stock", recovery(moving, demotedAt), moving, missing);
		assertThat(moving.get("recovered-at")).as("no write succeeds after the first READONLY; client %s", moving)
			.isEqualTo("0");
		assertThat(moving.get("first-failure")).contains("READONLY");
		assertThat(last.get("successes")).as("still no write succeeds a phase later; client %s", last).isEqualTo("0");
		assertThat(Long.parseLong(last.get("failures"))).as("client %s", last).isPositive();
		assertThat(last.get("first-failure")).contains("READONLY");
	}

	private void startWriting(String setup) throws IOException, InterruptedException {
		this.client.start(setup, this.serverA.port(), "role");
		this.client.awaitWriting();
		this.client.awaitWritesOn(this.serverA, Duration.ofSeconds(30));
		// The first phase holds the start; the next one the failover.
		Thread.sleep(1000);
		this.client.endPhase();
		Thread.sleep(500);
	}

	// A managed failover: no write A acknowledged is lost, and A keeps its clients.
	// Returns when A was demoted, in epoch milliseconds, the client's clock.
	private long failover() throws IOException {
		this.serverA.command("CLIENT", "PAUSE", "10000", "WRITE");
		Await.until(SERVER_TIMEOUT, this.serverB + " to have every write of " + this.serverA, () -> {
			String primary = this.serverA.info("replication").get("master_repl_offset");
			String replica = this.serverB.info("replication").get("master_repl_offset");
			return (primary != null && primary.equals(replica)) ? null : primary + " != " + replica;
		});
		this.serverB.command("REPLICAOF", "NO", "ONE");
		this.client.pointAt(this.serverB);
		this.serverA.command("REPLICAOF", this.serverB.host(), Integer.toString(this.serverB.port()));
		long demotedAt = System.currentTimeMillis();
		this.serverA.command("CLIENT", "UNPAUSE");
		return demotedAt;
	}

	private static void replicate(RedisNode replica, RedisNode primary) {
		replica.command("REPLICAOF", primary.host(), Integer.toString(primary.port()));
		Await.until(SERVER_TIMEOUT, replica + " to be in sync with " + primary, () -> {
			Map<String, String> replication = replica.info("replication");
			return "up".equals(replication.get("master_link_status")) ? null : replication.toString();
		});
	}

	// From the demotion to the first write that succeeded after a failure; zero when no
	// write failed, null when none succeeded again.
	private static Duration recovery(Map<String, String> phase, long demotedAt) {
		long recoveredAt = Long.parseLong(phase.get("recovered-at"));
		if (recoveredAt != 0) {
			return Duration.ofMillis(Math.max(0, recoveredAt - demotedAt));
		}
		return "0".equals(phase.get("failures")) ? Duration.ZERO : null;
	}

	private static List<String> missingOn(RedisNode server, List<String> keys) {
		List<String> missing = new ArrayList<>();
		for (int from = 0; from < keys.size(); from += 500) {
			List<String> batch = keys.subList(from, Math.min(keys.size(), from + 500));
			List<String> command = new ArrayList<>(List.of("EXISTS"));
			command.addAll(batch);
			Object found = server.command(command.toArray(String[]::new));
			if (!Long.valueOf(batch.size()).equals(found)) {
				batch.stream()
					.filter((key) -> !Long.valueOf(1).equals(server.command("EXISTS", key)))
					.forEach(missing::add);
			}
		}
		return missing;
	}

	// The numbers docs/outages.md quotes, in the test report.
	private static void report(String setup, Duration recovered, Map<String, String> phase, List<String> missing) {
		System.out.println("role-change " + setup + ": writes succeeded again "
				+ ((recovered != null) ? recovered.toMillis() + " ms after the demotion" : "never") + "; "
				+ missing.size() + " acknowledged writes missing on the new primary; client " + phase);
	}

}
