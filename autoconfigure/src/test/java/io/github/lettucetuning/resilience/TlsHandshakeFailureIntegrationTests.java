package io.github.lettucetuning.resilience;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import io.github.lettucetuning.health.LettuceHealthIndicator;
import io.github.lettucetuning.state.ClientState;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.CertificateAuthority;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A TLS handshake that one side refuses, against a real {@code redis-server} that
 * requires client certificates: it is reported as what it is, naming the server, the SSL
 * bundle and the reason, in the caller's exception, the health details and the endpoint,
 * not as an unreachable server.
 */
@Timeout(120)
class TlsHandshakeFailureIntegrationTests {

	private static final String CLIENT_NAME = "tls-refused";

	@TempDir
	Path directory;

	private CertificateAuthority trusted;

	private CertificateAuthority other;

	private CertificateAuthority.Issued client;

	@BeforeEach
	void createCertificates() {
		this.trusted = CertificateAuthority.create(this.directory, "trusted");
		this.other = CertificateAuthority.create(this.directory, "other");
		this.client = this.trusted.issue("client");
	}

	@Test
	void serverThatRefusesTheClientCertificateIsReportedAsSuch() throws Exception {
		CertificateAuthority.Issued server = this.trusted.issue("server");
		try (RedisStandalone redis = start(server)) {
			RedisNode node = redis.node();
			run(node, "the server refuses the client certificate of SSL bundle 'redis' (",
					() -> node.command("CONFIG", "SET", "tls-ca-cert-file", this.other.certificate().toString()),
					() -> node.command("CONFIG", "SET", "tls-ca-cert-file", this.trusted.certificate().toString()));
		}
	}

	@Test
	void serverCertificateTheClientDoesNotTrustIsReportedAsSuch() throws Exception {
		CertificateAuthority.Issued server = this.trusted.issue("server");
		CertificateAuthority.Issued untrusted = this.other.issue("server-untrusted");
		try (RedisStandalone redis = start(server)) {
			RedisNode node = redis.node();
			run(node, "the server's certificate is not trusted by SSL bundle 'redis' (",
					() -> node.command("CONFIG", "SET", "tls-cert-file", untrusted.certificate().toString(),
							"tls-key-file", untrusted.key().toString()),
					() -> node.command("CONFIG", "SET", "tls-cert-file", server.certificate().toString(),
							"tls-key-file", server.key().toString()));
		}
	}

	@Test
	void serverCertificateThatHasExpiredIsReportedAsSuch() throws Exception {
		CertificateAuthority.Issued server = this.trusted.issue("server");
		CertificateAuthority.Issued expired = this.trusted.issueExpired("server-expired");
		try (RedisStandalone redis = start(server)) {
			RedisNode node = redis.node();
			run(node, "the server's certificate has expired, and SSL bundle 'redis' does not accept it (",
					() -> node.command("CONFIG", "SET", "tls-cert-file", expired.certificate().toString(),
							"tls-key-file", expired.key().toString()),
					() -> node.command("CONFIG", "SET", "tls-cert-file", server.certificate().toString(),
							"tls-key-file", server.key().toString()));
		}
	}

	private RedisStandalone start(CertificateAuthority.Issued server) {
		return RedisStandalone.start(RedisServerConfig.defaults()
			.withName("tls-refused")
			.withTls(server.certificate(), server.key(), this.trusted.certificate(), true));
	}

	private void run(RedisNode node, String reason, Runnable refuse, Runnable accept) throws Exception {
		String expected = "DENIED by lettuce-tuning: the TLS handshake with Redis at 127.0.0.1:" + node.tlsPort()
				+ " fails: " + reason;
		String key = Files.readString(this.client.key());
		ObservabilityIntegrationSupport.contextRunner(CLIENT_NAME)
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.port=" + node.tlsPort(), "spring.data.redis.ssl.bundle=redis",
					"spring.ssl.bundle.pem.redis.keystore.certificate=file:" + this.client.certificate(),
					"spring.ssl.bundle.pem.redis.keystore.private-key=file:" + this.client.key(),
					"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + this.trusted.certificate(),
					"lettuce.tuning.resilience.fail-fast.grace=1s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("tls", "ok");
				LettuceHealthIndicator health = context.getBean(LettuceHealthIndicator.class);
				assertThat(health.health().getStatus()).isEqualTo(Status.UP);
				refuse.run();
				assertThat(Faults.killClients(node, CLIENT_NAME)).isPositive();
				AtomicReference<String> last = new AtomicReference<>();
				await(Duration.ofSeconds(15), () -> "the caller told of the TLS failure, last: " + last.get(), () -> {
					try {
						template.opsForValue().get("tls");
						return false;
					}
					catch (DataAccessException ex) {
						last.set(ex.getMessage());
						return String.valueOf(ex.getMessage()).startsWith(expected);
					}
				});
				assertThat(last.get()).doesNotContain("unreachable").doesNotContain("PRIVATE KEY");
				Health down = health.health();
				assertThat(down.getStatus()).isEqualTo(Status.DOWN);
				assertThat(String.valueOf(down.getDetails().get("error"))).contains(reason);
				assertThat(down.getDetails().get("unreachable")).asInstanceOf(InstanceOfAssertFactories.list(Map.class))
					.anySatisfy((outage) -> assertThat(String.valueOf(outage.get("tls"))).startsWith(reason));
				List<ClientState.Outage> outages = outages(context);
				assertThat(outages).isNotEmpty().allSatisfy((outage) -> assertThat(outage.tls()).startsWith(reason));
				String json = JsonMapper.builder()
					.build()
					.writeValueAsString(context.getBean(LettuceEndpoint.class).lettuce());
				assertThat(json).contains("\"tls\":\"" + reason.replace("'", "'"));
				assertThat(json).doesNotContain(key.lines().skip(1).findFirst().orElseThrow());
				// Once the server and the client agree again, the report clears.
				accept.run();
				await(Duration.ofSeconds(15), "health UP again", () -> health.health().getStatus() == Status.UP);
				assertThat(template.opsForValue().get("tls")).isEqualTo("ok");
				assertThat(outages(context)).isEmpty();
			});
	}

	private static List<ClientState.Outage> outages(AssertableApplicationContext context) {
		return context.getBean(LettuceEndpoint.class).lettuce().state().outages().unreachable();
	}

}
