package io.github.lettucetuning.socket;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.lettucetuning.testsupport.RedisStandaloneTest;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.netty.channel.uring.IoUring;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The socket settings reach the sockets: the options of the live Netty channel, on each
 * transport. Lettuce fixes its transport once per JVM, so NIO and io_uring run in a fresh
 * JVM.
 */
@RedisStandaloneTest
@Timeout(120)
class SocketOptionsIntegrationTests {

	private final RedisStandalone redis;

	SocketOptionsIntegrationTests(RedisStandalone redis) {
		this.redis = redis;
	}

	@Test
	void epollSocketsGetKeepAliveAndTcpUserTimeout() {
		Map<String, String> probe = SocketProbe.probe(this.redis.port());
		assertThat(probe).containsEntry("channel", "EpollSocketChannel")
			.containsEntry("option.SO_KEEPALIVE", "true")
			.containsEntry("option.TCP_KEEPIDLE", "13")
			.containsEntry("option.TCP_KEEPINTVL", "13")
			.containsEntry("option.TCP_KEEPCNT", "3")
			.containsEntry("option.TCP_USER_TIMEOUT", "52000");
	}

	@Test
	void stockSpringBootLeavesTcpUserTimeoutOff() {
		Map<String, String> probe = SocketProbe.probe(this.redis.port(), "lettuce.tuning.enabled=false");
		assertThat(probe).containsEntry("channel", "EpollSocketChannel").containsEntry("option.TCP_USER_TIMEOUT", "0");
	}

	@Test
	void nioInAFreshJvmKeepsKeepAliveWithoutTcpUserTimeout() throws Exception {
		Map<String, String> probe = probeInFreshJvm("lettuce.tuning.socket.transport=nio");
		// Lettuce's own keep-alive, which the starter leaves in place, reaches NIO
		// sockets too
		assertThat(probe).containsEntry("channel", "NioSocketChannel")
			.containsEntry("settings",
					"transport=nio, keep-alive=idle 13s, interval 13s, count 3, tcp-user-timeout=off")
			.containsEntry("option.SO_KEEPALIVE", "true")
			.containsEntry("option.TCP_KEEPIDLE", "13")
			.doesNotContainKey("option.TCP_USER_TIMEOUT");
	}

	@Test
	void ioUringInAFreshJvmGetsTcpUserTimeout() throws Exception {
		assumeTrue(IoUring.isAvailable(), () -> "io_uring is not available here: " + IoUring.unavailabilityCause());
		Map<String, String> probe = probeInFreshJvm("lettuce.tuning.socket.transport=io-uring",
				"lettuce.tuning.socket.tcp-user-timeout.duration=20s");
		assertThat(probe).containsEntry("channel", "IoUringSocketChannel")
			.containsEntry("option.TCP_USER_TIMEOUT", "20000")
			.containsEntry("option.TCP_KEEPIDLE", "13");
	}

	private Map<String, String> probeInFreshJvm(String... properties) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
						System.getProperty("java.class.path"), SocketProbe.class.getName(),
						Integer.toString(this.redis.port())));
		command.addAll(List.of(properties));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		Map<String, String> probe = new LinkedHashMap<>();
		output.lines().filter((line) -> line.startsWith("probe.")).forEach((line) -> {
			int equals = line.indexOf('=');
			probe.put(line.substring("probe.".length(), equals), line.substring(equals + 1));
		});
		assertThat(probe).as(output).containsKey("channel");
		return probe;
	}

}
