package io.github.lettucetuning.socket;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import io.netty.resolver.ResolvedAddressTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link HostsFile}: an entry is read from the given file, case-insensitively,
 * by address family, and a changed file is seen only once the last read is older than the
 * refresh interval, or was expired.
 */
class HostsFileTests {

	@TempDir
	Path directory;

	@Test
	void answersFromTheFileByAddressFamily() throws IOException {
		Path file = write("127.0.0.1 redis-primary.test\n::2 redis-primary.test\n");
		HostsFile hosts = HostsFile.of(file, Duration.ofHours(1));
		assertThat(hosts.address("Redis-Primary.TEST", ResolvedAddressTypes.IPV4_ONLY))
			.isEqualTo(InetAddress.getByName("127.0.0.1"));
		assertThat(hosts.address("redis-primary.test", ResolvedAddressTypes.IPV6_PREFERRED))
			.isEqualTo(InetAddress.getByName("::2"));
		assertThat(hosts.address("other.test", ResolvedAddressTypes.IPV4_PREFERRED)).isNull();
		assertThat(hosts.file()).isEqualTo(file);
	}

	@Test
	void aChangedFileIsSeenOnlyAfterTheRefreshInterval() throws IOException {
		Path file = write("127.0.0.1 redis-primary.test\n");
		HostsFile hourly = HostsFile.of(file, Duration.ofHours(1));
		HostsFile always = HostsFile.of(file, Duration.ZERO);
		write("127.0.0.2 redis-primary.test\n");
		assertThat(hourly.address("redis-primary.test", ResolvedAddressTypes.IPV4_ONLY))
			.isEqualTo(InetAddress.getByName("127.0.0.1"));
		assertThat(always.address("redis-primary.test", ResolvedAddressTypes.IPV4_ONLY))
			.isEqualTo(InetAddress.getByName("127.0.0.2"));
	}

	@Test
	void anExpiredReadIsReplacedAtTheNextLookupWhateverTheInterval() throws IOException {
		Path file = write("127.0.0.1 redis-primary.test\n");
		HostsFile hourly = HostsFile.of(file, Duration.ofHours(1));
		write("127.0.0.2 redis-primary.test\n");
		hourly.expire();
		assertThat(hourly.address("redis-primary.test", ResolvedAddressTypes.IPV4_ONLY))
			.isEqualTo(InetAddress.getByName("127.0.0.2"));
		write("127.0.0.3 redis-primary.test\n");
		assertThat(hourly.address("redis-primary.test", ResolvedAddressTypes.IPV4_ONLY))
			.as("expired once, then read hourly again")
			.isEqualTo(InetAddress.getByName("127.0.0.2"));
	}

	@Test
	void aMissingFileHasNoEntries() {
		HostsFile hosts = HostsFile.of(this.directory.resolve("missing"), Duration.ZERO);
		assertThat(hosts.address("redis-primary.test", ResolvedAddressTypes.IPV4_PREFERRED)).isNull();
	}

	@Test
	void withoutTheJdkPropertyThePlatformFileIsRead() {
		String configured = System.getProperty(HostsFile.JDK_HOSTS_FILE_PROPERTY);
		assertThat(HostsFile.ofJvm(Duration.ZERO).file()).isEqualTo((configured != null) ? Path.of(configured) : null);
	}

	private Path write(String content) throws IOException {
		return Files.writeString(this.directory.resolve("hosts"), content);
	}

}
