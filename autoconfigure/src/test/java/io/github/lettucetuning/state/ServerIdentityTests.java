package io.github.lettucetuning.state;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ServerIdentity}, on replies captured from real servers (see
 * {@code src/test/resources/server-replies/README.md}).
 */
class ServerIdentityTests {

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "redis-7.0.15-standalone, redis, 7.0.15, standalone", "redis-7.0.15-sentinel, redis, 7.0.15, sentinel",
			"redis-7.0.15-cluster, redis, 7.0.15, cluster", "valkey-8.0.1-standalone, valkey, 8.0.1, standalone",
			"valkey-8.0.1-sentinel, valkey, 8.0.1, sentinel", "valkey-8.0.1-cluster, valkey, 8.0.1, cluster",
			"valkey-8.0.1-standalone-extended-redis-compatibility, valkey, 8.0.1, standalone" })
	void fromInfoServerNamesTheServerAndItsOwnVersion(String capture, String name, String version, String mode)
			throws IOException {
		String info = new String(read(capture + "-info-server.txt"), StandardCharsets.UTF_8);
		assertThat(ServerIdentity.fromInfo(info)).isEqualTo(new ServerIdentity(name, version, mode));
	}

	@Test
	void fromInfoIgnoresTheCompatibilityVersionOfValkey() throws IOException {
		String info = new String(read("valkey-8.0.1-standalone-info-server.txt"), StandardCharsets.UTF_8);
		assertThat(info).contains("redis_version:7.2.4");
		assertThat(ServerIdentity.fromInfo(info).version()).isEqualTo("8.0.1");
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource({ "redis-7.0.15-standalone, redis, 7.0.15, standalone", "redis-7.0.15-sentinel, redis, 7.0.15, sentinel",
			"redis-7.0.15-cluster, redis, 7.0.15, cluster", "valkey-8.0.1-standalone, valkey, 8.0.1, standalone",
			"valkey-8.0.1-sentinel, valkey, 8.0.1, sentinel", "valkey-8.0.1-cluster, valkey, 8.0.1, cluster",
			// the reason INFO is preferred: compatibility mode makes HELLO say Redis
			"valkey-8.0.1-standalone-extended-redis-compatibility, redis, 7.2.4, standalone" })
	void fromHelloReadsServerVersionAndMode(String capture, String name, String version, String mode)
			throws IOException {
		Map<String, Object> hello = Resp3.map(read(capture + "-hello-3.resp"));
		assertThat(ServerIdentity.fromHello(hello)).isEqualTo(new ServerIdentity(name, version, mode));
	}

	@Test
	void fromInfoWithoutVersionFieldsIsUnknownRedis() {
		assertThat(ServerIdentity.fromInfo("# Server\r\nuptime_in_seconds:3\r\n"))
			.isEqualTo(new ServerIdentity("redis", ServerIdentity.UNKNOWN, null));
	}

	@Test
	void fromInfoOfAnotherServerUsesItsOwnVersionField() {
		assertThat(ServerIdentity.fromInfo(Map.of("redis_version", "7.2.4", "server_name", "Other", "other_version",
				"2.1.0", "server_mode", "cluster")))
			.isEqualTo(new ServerIdentity("other", "2.1.0", "cluster"));
		assertThat(ServerIdentity.fromInfo(Map.of("redis_version", "7.2.4", "server_name", "other")).version())
			.isEqualTo("7.2.4");
	}

	@Test
	void fromHelloWithoutFieldsIsUnknownRedis() {
		assertThat(ServerIdentity.fromHello(Map.of())).isEqualTo(new ServerIdentity("redis", "unknown", null));
	}

	private static byte[] read(String name) throws IOException {
		try (InputStream in = ServerIdentityTests.class.getResourceAsStream("/server-replies/" + name)) {
			assertThat(in).as(name).isNotNull();
			return in.readAllBytes();
		}
	}

	/**
	 * Reads the RESP3 replies captured here: a map of simple strings, bulk strings,
	 * integers and arrays of those.
	 */
	private static final class Resp3 {

		private final String[] lines;

		private int next;

		private Resp3(byte[] reply) {
			this.lines = new String(reply, StandardCharsets.UTF_8).split("\r\n");
		}

		@SuppressWarnings("unchecked")
		static Map<String, Object> map(byte[] reply) {
			Resp3 reader = new Resp3(reply);
			Object value = reader.value();
			assertThat(reader.next).as("every line read").isEqualTo(reader.lines.length);
			assertThat(value).isInstanceOf(Map.class);
			return (Map<String, Object>) value;
		}

		private Object value() {
			String line = this.lines[this.next++];
			String rest = line.substring(1);
			return switch (line.charAt(0)) {
				case '+' -> rest;
				case ':' -> Long.parseLong(rest);
				case '$' -> this.lines[this.next++];
				case '*' -> {
					List<Object> items = new ArrayList<>();
					for (int i = Integer.parseInt(rest); i > 0; i--) {
						items.add(value());
					}
					yield items;
				}
				case '%' -> {
					Map<String, Object> entries = new LinkedHashMap<>();
					for (int i = Integer.parseInt(rest); i > 0; i--) {
						entries.put(value().toString(), value());
					}
					yield entries;
				}
				default -> throw new IllegalStateException("Unexpected RESP3 line '" + line + "'");
			};
		}

	}

}
