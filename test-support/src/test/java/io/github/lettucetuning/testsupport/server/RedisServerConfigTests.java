package io.github.lettucetuning.testsupport.server;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link RedisServerConfig}.
 */
class RedisServerConfigTests {

	private static final Path DIRECTORY = Path.of("/tmp/lettuce-tuning-redis/nodes/redis-12345-abc");

	@Test
	void rendersTheTestFriendlyBase() {
		List<String> lines = RedisServerConfig.defaults().render(DIRECTORY, 12345);
		assertThat(lines).containsSubsequence("port 12345", "bind 127.0.0.1",
				"dir /tmp/lettuce-tuning-redis/nodes/redis-12345-abc", "logfile redis.log", "daemonize no", "save \"\"",
				"appendonly no", "protected-mode no", "enable-debug-command yes", "repl-diskless-sync-delay 0",
				"proc-title-template \"{title} {listen-addr} {server-mode} {config-file}\"");
		assertThat(lines).noneMatch((line) -> line.startsWith("requirepass"));
	}

	@Test
	void extraDirectivesComeAfterTheBaseSoTheyWin() {
		List<String> lines = RedisServerConfig.defaults().withDirective("appendonly", "yes").render(DIRECTORY, 1);
		assertThat(lines.indexOf("appendonly yes")).isGreaterThan(lines.indexOf("appendonly no"));
	}

	@Test
	void anotherBindAddressReplacesTheDefaultOne() {
		RedisServerConfig config = RedisServerConfig.defaults().withBindAddress("127.0.0.2");
		assertThat(config.host()).isEqualTo("127.0.0.2");
		assertThat(config.render(DIRECTORY, 1)).filteredOn((line) -> line.startsWith("bind "))
			.containsExactly("bind 127.0.0.2");
		assertThat(RedisServerConfig.defaults().host()).isEqualTo(RedisNode.HOST);
	}

	@Test
	void rendersTlsOnASecondPortAndKeepsTheClusterBusBesideThePlainPort() {
		RedisServerConfig config = RedisServerConfig.defaults()
			.withTls(Path.of("/certs/server.crt"), Path.of("/certs/server.key"), Path.of("/certs/ca.crt"), true);
		assertThat(config.isTlsEnabled()).isTrue();
		assertThat(RedisServerConfig.defaults().isTlsEnabled()).isFalse();
		assertThat(config.render(DIRECTORY, 12000, 13000))
			.contains("port 12000", "tls-port 13000", "tls-cert-file /certs/server.crt",
					"tls-key-file /certs/server.key", "tls-ca-cert-file /certs/ca.crt", "tls-auth-clients yes")
			.noneMatch((line) -> line.startsWith("cluster-port"));
		assertThat(config.withArguments("--cluster-enabled", "yes").render(DIRECTORY, 12000, 13000))
			.contains("cluster-port 22000");
		assertThat(config.render(DIRECTORY, 12000)).noneMatch((line) -> line.startsWith("tls-port"));
	}

	@Test
	void rendersPasswordAndAclUsers() {
		List<String> lines = RedisServerConfig.defaults()
			.withPassword("s3cret")
			.withAclUser("app", "pw")
			.withAclUser("reader", "pw", "~cache:*", "+get")
			.render(DIRECTORY, 1);
		assertThat(lines).contains("requirepass s3cret", "user app on >pw ~* &* +@all",
				"user reader on >pw ~cache:* +get");
	}

	@Test
	void quotesArgumentsThatNeedIt() {
		assertThat(RedisServerConfig.quote("plain-value_1.2:3/4")).isEqualTo("plain-value_1.2:3/4");
		assertThat(RedisServerConfig.quote("")).isEqualTo("\"\"");
		assertThat(RedisServerConfig.quote("with space")).isEqualTo("\"with space\"");
		assertThat(RedisServerConfig.quote("say \"hi\"\\\n")).isEqualTo("\"say \\\"hi\\\"\\\\\\n\"");
		assertThat(RedisServerConfig.quote("#comment")).isEqualTo("\"#comment\"");
	}

	@Test
	void parsesCommandLineStyleArguments() {
		RedisServerConfig config = RedisServerConfig.defaults()
			.withArguments("--cluster-enabled", "yes", "--user", "bob", "on", ">pw", "~*", "+@all", "--save", "");
		assertThat(config.directives()).extracting(RedisServerConfig.Directive::render)
			.containsExactly("cluster-enabled yes", "user bob on >pw ~* +@all", "save \"\"");
	}

	@Test
	void rejectsArgumentsWithoutADirective() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedisServerConfig.defaults().withArguments("yes", "--cluster-enabled"))
			.withMessageContaining("'--directive' before 'yes'");
	}

	@Test
	void detectsClusterMode() {
		assertThat(RedisServerConfig.defaults().isClusterEnabled()).isFalse();
		assertThat(RedisServerConfig.defaults().withArguments("--cluster-enabled", "yes").isClusterEnabled()).isTrue();
		assertThat(RedisServerConfig.defaults()
			.withArguments("--cluster-enabled", "yes", "--cluster-enabled", "no")
			.isClusterEnabled()).isFalse();
	}

	@Test
	void isImmutable() {
		RedisServerConfig defaults = RedisServerConfig.defaults();
		RedisServerConfig named = defaults.withName("other").withPort(7000).withSentinel(true).withPassword("x");
		assertThat(defaults.name()).isEqualTo("redis");
		assertThat(defaults.port()).isZero();
		assertThat(defaults.isSentinel()).isFalse();
		assertThat(defaults.password()).isNull();
		assertThat(named.name()).isEqualTo("other");
		assertThat(named.port()).isEqualTo(7000);
		assertThat(named.isSentinel()).isTrue();
		assertThat(named.toString()).doesNotContain("x\"").doesNotContain("password");
	}

}
