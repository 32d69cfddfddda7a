package io.github.lettucetuning.connection;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.server.ClientInfo;
import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * ACL users and TLS against real servers.
 */
@RedisStandaloneTest(aclUsers = "app:s3cret")
@Timeout(120)
class SecurityIntegrationTests {

	private final RedisStandalone redis;

	SecurityIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void aclUserAuthenticatesTheSharedAndDedicatedConnections() {
		TopologiesIntegrationSupport.contextRunner("acl-it")
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(), "spring.data.redis.username=app",
					"spring.data.redis.password=s3cret")
			.run((context) -> {
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("acl", "ok");
				template.execute(new SharedModeIntegrationTests.IncrementTwiceInTransaction());
				assertThat(template.opsForValue().get("acl")).isEqualTo("ok");
				List<ClientInfo> ours = this.redis.node()
					.clientList()
					.stream()
					.filter((client) -> client.name().equals("acl-it"))
					.toList();
				assertThat(ours).hasSize(2)
					.allSatisfy((client) -> assertThat(client.fields()).containsEntry("user", "app"));
			});
	}

	@Test
	void wrongPasswordFailsWithAClearException() {
		TopologiesIntegrationSupport.contextRunner("acl-wrong")
			.withPropertyValues("spring.data.redis.port=" + this.redis.port(), "spring.data.redis.username=app",
					"spring.data.redis.password=wrong")
			.run((context) -> assertThatExceptionOfType(RedisConnectionFailureException.class)
				.isThrownBy(() -> context.getBean(StringRedisTemplate.class).opsForValue().get("acl"))
				.satisfies((ex) -> assertThat(ex).hasStackTraceContaining("WRONGPASS")));
	}

	@Test
	void tlsWithAnSslBundle(@TempDir Path directory) throws Exception {
		Path certificate = directory.resolve("redis.crt");
		Path key = directory.resolve("redis.key");
		createSelfSignedCertificate(certificate, key);
		int tlsPort = ephemeralPort();
		try (RedisStandalone tls = RedisStandalone.start(RedisServerConfig.defaults()
			.withName("tls")
			.withDirective("tls-port", String.valueOf(tlsPort))
			.withDirective("tls-cert-file", certificate.toString())
			.withDirective("tls-key-file", key.toString())
			.withDirective("tls-ca-cert-file", certificate.toString())
			.withDirective("tls-auth-clients", "no"))) {
			TopologiesIntegrationSupport.contextRunner("tls-it")
				.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
				.withPropertyValues("spring.data.redis.port=" + tlsPort, "spring.data.redis.ssl.bundle=redis",
						"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + certificate)
				.run((context) -> {
					StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
					template.opsForValue().set("secure", "yes");
					assertThat(tls.node().commandAsString("GET", "secure")).isEqualTo("yes");
					assertThat(tls.node().countClients("tls-it")).isOne();
				});
		}
	}

	private static void createSelfSignedCertificate(Path certificate, Path key) throws Exception {
		Process process = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
				key.toString(), "-out", certificate.toString(), "-days", "2", "-subj", "/CN=localhost", "-addext",
				"subjectAltName=IP:127.0.0.1,DNS:localhost")
			.redirectErrorStream(true)
			.start();
		String output = new String(process.getInputStream().readAllBytes());
		assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
	}

	private static int ephemeralPort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
