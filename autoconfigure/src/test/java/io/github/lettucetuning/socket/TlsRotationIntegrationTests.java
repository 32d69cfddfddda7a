package io.github.lettucetuning.socket;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport;
import io.github.lettucetuning.testsupport.fault.Faults;
import io.github.lettucetuning.testsupport.server.CertificateAuthority;
import io.github.lettucetuning.testsupport.server.RedisNode;
import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static io.github.lettucetuning.autoconfigure.ObservabilityIntegrationSupport.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client certificate and its CA rotated under a running application, against a real
 * {@code redis-server} that requires client certificates ({@code tls-auth-clients yes}),
 * as cert-manager rotates them in Kubernetes: the server first trusts both CAs and
 * presents a certificate of the new one, then the files of the application's SSL bundle
 * are replaced with the new generation, then the server drops the old CA and the
 * application's connections are killed. Every kind of connection must be back within 5 s:
 * the shared one, a pooled one and a Pub/Sub subscription. Spring Boot's own
 * configuration keeps the material of startup, and fails the same test.
 */
@Timeout(180)
class TlsRotationIntegrationTests {

	private static final Log logger = LogFactory.getLog(TlsRotationIntegrationTests.class);

	private static final Duration BOUND = Duration.ofSeconds(5);

	// Longer than the bound, so that stock Boot's failure is not a matter of a moment.
	private static final Duration WATCHED = Duration.ofSeconds(8);

	private static final String STORE_PASSWORD = "changeit";

	@TempDir
	Path directory;

	// PEM files by default; PKCS12 stores through a JKS bundle when set.
	private boolean jks;

	private CertificateAuthority oldCa;

	private CertificateAuthority newCa;

	private Path bundleDirectory;

	@BeforeEach
	void createCertificates() throws Exception {
		this.oldCa = CertificateAuthority.create(this.directory, "old");
		this.newCa = CertificateAuthority.create(this.directory, "new");
		this.bundleDirectory = Files.createDirectory(this.directory.resolve("bundle"));
		install(this.oldCa.issue("client-old"), this.oldCa);
	}

	@ParameterizedTest
	@ValueSource(strings = { "shared", "pooled" })
	void everyConnectionUsesTheRotatedMaterialAfterAKill(String mode) throws Exception {
		try (RedisStandalone redis = startServer()) {
			Recovery recovery = rotateAndKill(redis.node(),
					ObservabilityIntegrationSupport.contextRunner("tls-rotation")
						.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
						.withPropertyValues("lettuce.tuning.connection.mode=" + mode),
					"tls-rotation");
			logger.info("lettuce-tuning (" + mode + ") after the rotation: " + recovery);
			assertThat(recovery.bundleReloaded()).isTrue();
			assertThat(recovery.shared()).as("shared connection back after the kill").isNotNull();
			assertThat(recovery.shared()).isLessThanOrEqualTo(BOUND);
			assertThat(recovery.dedicated()).as("pooled connection back after the kill").isNotNull();
			assertThat(recovery.dedicated()).isLessThanOrEqualTo(BOUND);
			assertThat(recovery.subscription()).as("subscription back after the kill").isNotNull();
			assertThat(recovery.subscription()).isLessThanOrEqualTo(BOUND);
		}
	}

	@Test
	void keyStoreBundleRotatesToo() throws Exception {
		this.jks = true;
		try (RedisStandalone redis = startServer()) {
			Recovery recovery = rotateAndKill(redis.node(),
					ObservabilityIntegrationSupport.contextRunner("tls-rotation-jks")
						.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class)),
					"tls-rotation-jks");
			logger.info("lettuce-tuning (JKS bundle) after the rotation: " + recovery);
			assertThat(recovery.bundleReloaded()).isTrue();
			assertThat(recovery.shared()).isNotNull().isLessThanOrEqualTo(BOUND);
			assertThat(recovery.dedicated()).isNotNull().isLessThanOrEqualTo(BOUND);
			assertThat(recovery.subscription()).isNotNull().isLessThanOrEqualTo(BOUND);
		}
	}

	@Test
	void stockBootKeepsTheMaterialOfStartup() throws Exception {
		try (RedisStandalone redis = startServer()) {
			Recovery recovery = rotateAndKill(redis.node(),
					new ApplicationContextRunner().withConfiguration(
							AutoConfigurations.of(DataRedisAutoConfiguration.class, SslAutoConfiguration.class)),
					"tls-rotation-stock");
			logger.info("Spring Boot after the rotation: " + recovery);
			// Boot's registry took the new files; Boot's connections never used them.
			assertThat(recovery.bundleReloaded()).isTrue();
			assertThat(recovery.shared()).as("shared connection back after the kill").isNull();
			assertThat(recovery.dedicated()).as("pooled connection back after the kill").isNull();
			assertThat(recovery.subscription()).as("subscription back after the kill").isNull();
		}
	}

	@Test
	void clusterNodesUseTheRotatedMaterialAfterAKill() throws Exception {
		try (RedisClusterTopology cluster = startCluster()) {
			Duration recovered = rotateClusterAndKill(cluster,
					ObservabilityIntegrationSupport.contextRunner("tls-cluster")
						.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class)),
					"tls-cluster");
			logger.info("lettuce-tuning (cluster) after the rotation: every node back after " + recovered);
			assertThat(recovered).as("every node back after the kill").isNotNull().isLessThanOrEqualTo(BOUND);
		}
	}

	@Test
	void stockBootClusterNodesKeepTheMaterialOfStartup() throws Exception {
		try (RedisClusterTopology cluster = startCluster()) {
			Duration recovered = rotateClusterAndKill(cluster,
					new ApplicationContextRunner().withConfiguration(
							AutoConfigurations.of(DataRedisAutoConfiguration.class, SslAutoConfiguration.class)),
					"tls-cluster-stock");
			logger.info("Spring Boot (cluster) after the rotation: every node back after " + recovered);
			assertThat(recovered).as("every node back after the kill").isNull();
		}
	}

	@Test
	void sentinelDefinedConnectionsUseTheRotatedMaterialAfterAKill() throws Exception {
		try (RedisSentinelTopology sentinel = startSentinel()) {
			Recovery recovery = rotateClientCertificateAndKill(sentinel,
					ObservabilityIntegrationSupport.contextRunner("tls-sentinel")
						.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class)),
					"tls-sentinel");
			logger.info("lettuce-tuning (Sentinel) after the rotation: " + recovery);
			assertThat(recovery.bundleReloaded()).isTrue();
			assertThat(recovery.shared()).as("shared connection back after the kill").isNotNull();
			assertThat(recovery.shared()).isLessThanOrEqualTo(BOUND);
			assertThat(recovery.dedicated()).as("pooled connection back after the kill").isNotNull();
			assertThat(recovery.dedicated()).isLessThanOrEqualTo(BOUND);
		}
	}

	@Test
	void stockBootSentinelDefinedConnectionsKeepTheMaterialOfStartup() throws Exception {
		try (RedisSentinelTopology sentinel = startSentinel()) {
			Recovery recovery = rotateClientCertificateAndKill(sentinel,
					new ApplicationContextRunner().withConfiguration(
							AutoConfigurations.of(DataRedisAutoConfiguration.class, SslAutoConfiguration.class)),
					"tls-sentinel-stock");
			logger.info("Spring Boot (Sentinel) after the rotation: " + recovery);
			assertThat(recovery.bundleReloaded()).isTrue();
			assertThat(recovery.shared()).as("shared connection back after the kill").isNull();
			assertThat(recovery.dedicated()).as("pooled connection back after the kill").isNull();
		}
	}

	// Sentinel's own TLS material cannot change at runtime (it has no CONFIG SET), so
	// every process presents a certificate of the new CA from the start and trusts both
	// CAs; the rotation is the client's: its certificate moves to the new CA, then the
	// data nodes stop trusting the old one. The Sentinels keep monitoring throughout.
	private RedisSentinelTopology startSentinel() throws Exception {
		CertificateAuthority.Issued server = this.newCa.issue("server-new");
		Path both = CertificateAuthority.bundle(this.directory.resolve("both-ca.crt"), this.oldCa, this.newCa);
		replace(both, "ca.crt");
		return RedisSentinelTopology.builder().tls(server.certificate(), server.key(), both).start();
	}

	private Recovery rotateClientCertificateAndKill(RedisSentinelTopology sentinel, ApplicationContextRunner runner,
			String clientName) throws Exception {
		Recovery[] recovery = new Recovery[1];
		RedisNode master = sentinel.master();
		runner.withPropertyValues(properties(clientName))
			.withPropertyValues("spring.data.redis.sentinel.master=" + sentinel.masterName(),
					"spring.data.redis.sentinel.nodes=" + sentinel.sentinelNodes())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				template.opsForValue().set("rotation", "before");
				assertThat(template.execute(new IncrementInTransaction())).hasSize(1);
				SslBundle before = context.getBean(SslBundles.class).getBundle("redis");
				CertificateAuthority.Issued client = this.newCa.issue("client-new");
				replace(client.certificate(), "client.crt");
				replace(client.key(), "client.key");
				boolean reloaded = awaitReload(context, before);
				for (RedisNode node : sentinel.dataNodes()) {
					node.command("CONFIG", "SET", "tls-ca-cert-file", this.newCa.certificate().toString());
				}
				sentinel.sentinels().forEach((node) -> Faults.killClients(node, clientName));
				assertThat(Faults.killClients(master, clientName)).isGreaterThanOrEqualTo(1);
				recovery[0] = watch(master, template, null, reloaded);
			});
		return recovery[0];
	}

	private RedisClusterTopology startCluster() {
		CertificateAuthority.Issued server = this.oldCa.issue("server-old");
		return RedisClusterTopology.builder()
			.masters(3)
			.replicasPerMaster(0)
			.tls(server.certificate(), server.key(), this.oldCa.certificate())
			.start();
	}

	// Every node is rotated as the standalone server is; then a key on each master is
	// read until all of them answer.
	private @Nullable Duration rotateClusterAndKill(RedisClusterTopology cluster, ApplicationContextRunner runner,
			String clientName) throws Exception {
		List<RedisNode> masters = cluster.masters();
		List<String> keys = masters.stream().map(RedisNode::port).map((port) -> keyOn(cluster, port)).toList();
		AtomicReference<Duration> recovered = new AtomicReference<>();
		runner.withPropertyValues(properties(clientName))
			.withPropertyValues("spring.data.redis.cluster.nodes=127.0.0.1:" + masters.get(0).tlsPort())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				keys.forEach((key) -> template.opsForValue().set(key, "before"));
				SslBundle before = context.getBean(SslBundles.class).getBundle("redis");
				Path both = CertificateAuthority.bundle(this.directory.resolve("both-ca.crt"), this.oldCa, this.newCa);
				masters.forEach((node) -> node.command("CONFIG", "SET", "tls-ca-cert-file", both.toString()));
				CertificateAuthority.Issued server = this.newCa.issue("server-new");
				masters.forEach((node) -> node.command("CONFIG", "SET", "tls-cert-file",
						server.certificate().toString(), "tls-key-file", server.key().toString()));
				install(this.newCa.issue("client-new"), this.newCa);
				assertThat(awaitReload(context, before)).isTrue();
				masters.forEach((node) -> node.command("CONFIG", "SET", "tls-ca-cert-file",
						this.newCa.certificate().toString()));
				assertThat(masters.stream().mapToLong((node) -> Faults.killClients(node, clientName)).sum())
					.isGreaterThanOrEqualTo(masters.size());
				long killed = System.nanoTime();
				long deadline = killed + WATCHED.toNanos();
				while (System.nanoTime() < deadline) {
					if (keys.stream().allMatch((key) -> succeeds(() -> template.opsForValue().get(key)))) {
						recovered.set(since(killed));
						return;
					}
					sleep(Duration.ofMillis(20));
				}
			});
		return recovered.get();
	}

	private static String keyOn(RedisClusterTopology cluster, int port) {
		for (int i = 0;; i++) {
			String key = "rotation:" + i;
			if (cluster.masterForKey(key).port() == port) {
				return key;
			}
		}
	}

	private RedisStandalone startServer() {
		CertificateAuthority.Issued server = this.oldCa.issue("server-old");
		return RedisStandalone.start(RedisServerConfig.defaults()
			.withName("tls-rotation")
			.withTls(server.certificate(), server.key(), this.oldCa.certificate(), true));
	}

	private Recovery rotateAndKill(RedisNode node, ApplicationContextRunner runner, String clientName)
			throws Exception {
		Recovery[] recovery = new Recovery[1];
		runner.withPropertyValues(properties(clientName))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + node.tlsPort())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				AtomicLong received = new AtomicLong();
				RedisConnection subscriber = context.getBean(RedisConnectionFactory.class).getConnection();
				subscriber.subscribe((message, pattern) -> received.incrementAndGet(),
						"rotation".getBytes(StandardCharsets.UTF_8));
				try {
					template.opsForValue().set("rotation", "before");
					assertThat(template.execute(new IncrementInTransaction())).hasSize(1);
					await(Duration.ofSeconds(10), "a message before the rotation", () -> publish(node, received));
					SslBundle before = context.getBean(SslBundles.class).getBundle("redis");
					rotate(node);
					boolean reloaded = awaitReload(context, before);
					node.command("CONFIG", "SET", "tls-ca-cert-file", this.newCa.certificate().toString());
					assertThat(Faults.killClients(node, clientName)).isGreaterThanOrEqualTo(2);
					recovery[0] = watch(node, template, received, reloaded);
				}
				finally {
					subscriber.close();
				}
			});
		return recovery[0];
	}

	// The server trusts both CAs and presents the new generation; then the bundle's
	// files are replaced, as cert-manager renews a secret mounted into the pod.
	private void rotate(RedisNode node) throws Exception {
		CertificateAuthority.Issued server = this.newCa.issue("server-new");
		Path both = CertificateAuthority.bundle(this.directory.resolve("both-ca.crt"), this.oldCa, this.newCa);
		node.command("CONFIG", "SET", "tls-ca-cert-file", both.toString(), "tls-cert-file",
				server.certificate().toString(), "tls-key-file", server.key().toString());
		install(this.newCa.issue("client-new"), this.newCa);
	}

	private static boolean awaitReload(AssertableApplicationContext context, SslBundle before) {
		long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
		while (System.nanoTime() < deadline) {
			if (context.getBean(SslBundles.class).getBundle("redis") != before) {
				return true;
			}
			sleep(Duration.ofMillis(20));
		}
		return false;
	}

	// From the kill on, every command kind is tried over and over; each one's first
	// success is noted.
	// Without a subscriber to count (received null), only the shared and the dedicated
	// connection are watched.
	private static Recovery watch(RedisNode node, StringRedisTemplate template, @Nullable AtomicLong received,
			boolean reloaded) {
		long killed = System.nanoTime();
		long deadline = killed + WATCHED.toNanos();
		Duration shared = null;
		Duration dedicated = null;
		Duration subscription = null;
		long receivedAtKill = (received != null) ? received.get() : 0;
		while (System.nanoTime() < deadline
				&& (shared == null || dedicated == null || (received != null && subscription == null))) {
			if (shared == null && succeeds(() -> template.opsForValue().get("rotation"))) {
				shared = since(killed);
			}
			if (dedicated == null && succeeds(() -> template.execute(new IncrementInTransaction()))) {
				dedicated = since(killed);
			}
			if (received != null && subscription == null) {
				node.command("PUBLISH", "rotation", "after");
				if (received.get() > receivedAtKill) {
					subscription = since(killed);
				}
			}
			sleep(Duration.ofMillis(20));
		}
		return new Recovery(reloaded, shared, dedicated, subscription);
	}

	private static boolean succeeds(Runnable command) {
		try {
			command.run();
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private static boolean publish(RedisNode node, AtomicLong received) {
		node.command("PUBLISH", "rotation", "before");
		return received.get() > 0;
	}

	private String[] properties(String clientName) {
		if (this.jks) {
			return new String[] { "spring.data.redis.client-name=" + clientName, "spring.data.redis.timeout=1s",
					"spring.data.redis.ssl.bundle=redis",
					"spring.ssl.bundle.jks.redis.keystore.location=file:" + this.bundleDirectory.resolve("client.p12"),
					"spring.ssl.bundle.jks.redis.keystore.password=" + STORE_PASSWORD,
					"spring.ssl.bundle.jks.redis.keystore.type=PKCS12",
					"spring.ssl.bundle.jks.redis.truststore.location=file:" + this.bundleDirectory.resolve("trust.p12"),
					"spring.ssl.bundle.jks.redis.truststore.password=" + STORE_PASSWORD,
					"spring.ssl.bundle.jks.redis.truststore.type=PKCS12",
					"spring.ssl.bundle.jks.redis.reload-on-update=true",
					"spring.ssl.bundle.watch.file.quiet-period=100ms" };
		}
		return new String[] { "spring.data.redis.client-name=" + clientName, "spring.data.redis.timeout=1s",
				"spring.data.redis.ssl.bundle=redis",
				"spring.ssl.bundle.pem.redis.keystore.certificate=file:" + this.bundleDirectory.resolve("client.crt"),
				"spring.ssl.bundle.pem.redis.keystore.private-key=file:" + this.bundleDirectory.resolve("client.key"),
				"spring.ssl.bundle.pem.redis.truststore.certificate=file:" + this.bundleDirectory.resolve("ca.crt"),
				"spring.ssl.bundle.pem.redis.reload-on-update=true",
				"spring.ssl.bundle.watch.file.quiet-period=100ms" };
	}

	// Each file is replaced in one move, as a renewal replaces a mounted secret.
	private void install(CertificateAuthority.Issued client, CertificateAuthority ca) throws Exception {
		replace(client.certificate(), "client.crt");
		replace(client.key(), "client.key");
		replace(ca.certificate(), "ca.crt");
		replace(keyStore(client), "client.p12");
		replace(trustStore(ca), "trust.p12");
	}

	private Path keyStore(CertificateAuthority.Issued client) throws Exception {
		String pem = Files.readString(client.key()).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
		PrivateKey key = KeyFactory.getInstance("RSA")
			.generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(pem)));
		KeyStore store = KeyStore.getInstance("PKCS12");
		store.load(null, null);
		store.setKeyEntry("client", key, STORE_PASSWORD.toCharArray(),
				new Certificate[] { certificate(client.certificate()) });
		return store(store, "client-store.p12");
	}

	private Path trustStore(CertificateAuthority ca) throws Exception {
		KeyStore store = KeyStore.getInstance("PKCS12");
		store.load(null, null);
		store.setCertificateEntry("ca", certificate(ca.certificate()));
		return store(store, "trust-store.p12");
	}

	private Path store(KeyStore store, String name) throws Exception {
		Path file = this.directory.resolve(name);
		try (OutputStream out = Files.newOutputStream(file)) {
			store.store(out, STORE_PASSWORD.toCharArray());
		}
		return file;
	}

	private static Certificate certificate(Path pem) throws Exception {
		try (InputStream in = Files.newInputStream(pem)) {
			return CertificateFactory.getInstance("X.509").generateCertificate(in);
		}
	}

	private void replace(Path source, String name) throws Exception {
		Path staged = this.directory.resolve(name + ".staged");
		Files.copy(source, staged, StandardCopyOption.REPLACE_EXISTING);
		Files.move(staged, this.bundleDirectory.resolve(name), StandardCopyOption.ATOMIC_MOVE,
				StandardCopyOption.REPLACE_EXISTING);
	}

	private static Duration since(long startNanos) {
		return Duration.ofNanos(System.nanoTime() - startNanos);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * How long after the kill each kind of connection first worked again.
	 *
	 * @param bundleReloaded whether Spring Boot reloaded the bundle before the kill
	 * @param shared a command on the shared connection, or {@code null} if never
	 * @param dedicated a transaction on a pooled connection, or {@code null} if never
	 * @param subscription a message to the subscription, or {@code null} if never
	 */
	record Recovery(boolean bundleReloaded, @Nullable Duration shared, @Nullable Duration dedicated,
			@Nullable Duration subscription) {

	}

	private static final class IncrementInTransaction implements SessionCallback<List<Object>> {

		@Override
		@SuppressWarnings("unchecked")
		public <K, V> List<Object> execute(RedisOperations<K, V> operations) {
			RedisOperations<String, String> strings = (RedisOperations<String, String>) operations;
			strings.multi();
			strings.opsForValue().increment("rotation:tx");
			return strings.exec();
		}

	}

}
