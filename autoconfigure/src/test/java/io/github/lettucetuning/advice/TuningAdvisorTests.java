package io.github.lettucetuning.advice;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static io.github.lettucetuning.advice.Configurations.recommended;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link TuningAdvisor}.
 */
class TuningAdvisorTests {

	private final TuningAdvisor advisor = new TuningAdvisor();

	@Test
	void recommendedSetupHasNoFindings() {
		assertThat(advise(recommended())).isEmpty();
	}

	@Test
	void pooledModeCarriesSharedTraffic() {
		Configurations.Builder pooled = recommended()
			.connections(new EffectiveConfiguration.Connections("pooled", 0, null, false, false));
		assertThat(advise(pooled)).singleElement().satisfies((finding) -> {
			assertThat(finding.id()).isEqualTo(TuningAdvisor.POOL_SHARED_TRAFFIC);
			assertThat(finding.severity()).isEqualTo("warning");
			assertThat(finding.fix()).contains("lettuce.tuning.connection.mode=shared");
		});
	}

	@Test
	void clusterWithoutPeriodicRefresh() {
		assertThat(ids(recommended().cluster(Configurations.cluster(false))))
			.containsExactly(TuningAdvisor.CLUSTER_NO_PERIODIC_REFRESH);
		assertThat(ids(recommended().cluster(Configurations.cluster(true)))).isEmpty();
	}

	@Test
	void nioTransportCannotDetectDeadHosts() {
		assertThat(advise(recommended().socket(Configurations.socket("nio", true, false)))).singleElement()
			.satisfies((finding) -> {
				assertThat(finding.id()).isEqualTo(TuningAdvisor.NO_NATIVE_TRANSPORT);
				assertThat(finding.fix()).contains("netty-transport-native-epoll");
			});
	}

	@Test
	void nativeTransportWithoutTcpUserTimeout() {
		assertThat(ids(recommended().socket(Configurations.socket("epoll", true, false))))
			.containsExactly(TuningAdvisor.NO_TCP_USER_TIMEOUT);
	}

	@Test
	void keepAliveOnOperatingSystemTimings() {
		assertThat(ids(recommended().socket(Configurations.socket("epoll", false, true))))
			.containsExactly(TuningAdvisor.NO_KEEP_ALIVE);
	}

	@Test
	void aResolverThatKeepsAnswersLongIsReported() {
		assertThat(advise(
				recommended().socket(socketWithDns(new EffectiveConfiguration.Dns("lettuce", null, "platform")))))
			.singleElement()
			.satisfies((finding) -> {
				assertThat(finding.id()).isEqualTo(TuningAdvisor.STALE_DNS_ANSWERS);
				assertThat(finding.severity()).isEqualTo("info");
				assertThat(finding.fix()).contains("lettuce.tuning.dns.enabled");
			});
		assertThat(advise(recommended().socket(socketWithDns(new EffectiveConfiguration.Dns("jdk", null, null)))))
			.singleElement()
			.satisfies((finding) -> {
				assertThat(finding.severity()).isEqualTo("warning");
				assertThat(finding.message()).contains("for ever");
			});
		assertThat(advise(recommended()
			.socket(socketWithDns(new EffectiveConfiguration.Dns("jdk", Duration.ofSeconds(30), null)))))
			.singleElement()
			.satisfies((finding) -> assertThat(finding.message()).contains("30s"));
	}

	private static EffectiveConfiguration.Socket socketWithDns(EffectiveConfiguration.Dns dns) {
		EffectiveConfiguration.Socket socket = Configurations.socket("epoll", true, true);
		return new EffectiveConfiguration.Socket(socket.transport(), socket.nativeTransport(), socket.connectTimeout(),
				socket.keepAlive(), socket.tcpUserTimeout(), socket.inactiveReason(), socket.flushConsolidation(), dns,
				null);
	}

	@Test
	void timeoutNearTheTickIsAWarningAndBelowItAnError() {
		Configurations.Builder netty = recommended().pool(null)
			.timer(new EffectiveConfiguration.Timer("netty", Duration.ofMillis(100), 512, null, "lettuce"));
		assertThat(advise(netty.commandTimeout(Duration.ofMillis(200)))).singleElement().satisfies((finding) -> {
			assertThat(finding.id()).isEqualTo(TuningAdvisor.TIMEOUT_BELOW_TIMER_TICK);
			assertThat(finding.severity()).isEqualTo("warning");
			assertThat(finding.message()).contains("200ms").contains("100ms").contains("50%");
		});
		assertThat(advise(netty.commandTimeout(Duration.ofMillis(50)))).singleElement()
			.satisfies((finding) -> assertThat(finding.severity()).isEqualTo("error"));
		assertThat(advise(netty.commandTimeout(Duration.ofSeconds(1)))).isEmpty();
	}

	@Test
	void timeoutBelowTickDoesNotApplyWithoutExpiry() {
		assertThat(advise(
				recommended().pool(null).commands(new EffectiveConfiguration.Commands(Duration.ofMillis(5), false))))
			.isEmpty();
	}

	@Test
	void multiModeWithFewerIoThreadsThanConnections() {
		Configurations.Builder multi = recommended()
			.connections(new EffectiveConfiguration.Connections("multi", 4, "round-robin", true, false));
		assertThat(ids(multi.threads(new EffectiveConfiguration.Threads(2, 2))))
			.containsExactly(TuningAdvisor.MULTI_FEWER_IO_THREADS);
		assertThat(ids(multi.threads(new EffectiveConfiguration.Threads(4, 2)))).isEmpty();
	}

	@Test
	void poolWaitForeverOrLongerThanTheCommandTimeout() {
		assertThat(advise(recommended().pool(new EffectiveConfiguration.Pool(8, 8, 0, Duration.ofMillis(-1)))))
			.singleElement()
			.satisfies((finding) -> {
				assertThat(finding.id()).isEqualTo(TuningAdvisor.UNBOUNDED_POOL_WAIT);
				assertThat(finding.severity()).isEqualTo("warning");
			});
		assertThat(advise(recommended().pool(new EffectiveConfiguration.Pool(8, 8, 0, Duration.ofSeconds(30)))))
			.singleElement()
			.satisfies((finding) -> assertThat(finding.severity()).isEqualTo("info"));
	}

	@Test
	void anUnboundedRedisHealthContributorInPlaceOfOurs() {
		Configurations.Builder bootTimeout = recommended().pool(null).commandTimeout(Duration.ofSeconds(60));
		assertThat(advise(bootTimeout.health(new EffectiveConfiguration.Health(false, null, true)))).singleElement()
			.satisfies((finding) -> {
				assertThat(finding.id()).isEqualTo(TuningAdvisor.REDIS_HEALTH_UNBOUNDED);
				assertThat(finding.message()).contains("60s");
			});
		assertThat(ids(bootTimeout.health(new EffectiveConfiguration.Health(true, Duration.ofSeconds(2), false))))
			.isEmpty();
		assertThat(ids(bootTimeout.health(new EffectiveConfiguration.Health(false, null, false))))
			.as("no redis health contributor at all")
			.isEmpty();
	}

	@Test
	void findingsAreOrderedBySeverityThenId() {
		Configurations.Builder configuration = recommended()
			.connections(new EffectiveConfiguration.Connections("pooled", 0, null, false, false))
			.commandTimeout(Duration.ofMillis(5))
			.pool(new EffectiveConfiguration.Pool(8, 8, 0, Duration.ofMillis(-1)))
			.health(new EffectiveConfiguration.Health(false, null, true));
		assertThat(ids(configuration)).containsExactly(TuningAdvisor.TIMEOUT_BELOW_TIMER_TICK,
				TuningAdvisor.POOL_SHARED_TRAFFIC, TuningAdvisor.UNBOUNDED_POOL_WAIT,
				TuningAdvisor.REDIS_HEALTH_UNBOUNDED);
	}

	private List<Finding> advise(Configurations.Builder configuration) {
		return this.advisor.advise(configuration.build());
	}

	private List<String> ids(Configurations.Builder configuration) {
		return advise(configuration).stream().map(Finding::id).toList();
	}

}
