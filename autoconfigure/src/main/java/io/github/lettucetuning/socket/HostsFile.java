package io.github.lettucetuning.socket;

import java.net.InetAddress;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.netty.resolver.HostsFileEntriesProvider;
import io.netty.resolver.HostsFileEntriesResolver;
import io.netty.resolver.ResolvedAddressTypes;
import org.jspecify.annotations.Nullable;

/**
 * The hosts file the JVM reads, re-read at most once per refresh interval. Netty's DNS
 * resolver, Lettuce's default, reads {@code /etc/hosts} once per JVM and never the file
 * named by {@code jdk.net.hosts.file}, so an entry that changes is never seen and a JVM
 * told to use another file resolves differently from Lettuce. This reads the file the JDK
 * reads ({@code jdk.net.hosts.file} when set, else the platform's hosts file) and reloads
 * it once the last read is older than the interval, so an entry is stale for at most that
 * long.
 * <p>
 * Netty asks it on the event loop before any DNS query; a reload is one read of a small
 * file, as Netty's own refreshing resolver does there. Two loops may reload at once; both
 * read the same file, and the later read wins.
 *
 * @since 0.1.0
 */
public final class HostsFile implements HostsFileEntriesResolver {

	/**
	 * The system property naming the JDK's hosts file.
	 */
	public static final String JDK_HOSTS_FILE_PROPERTY = "jdk.net.hosts.file";

	private final @Nullable Path file;

	private final long refreshNanos;

	private volatile Entries entries;

	private volatile boolean expired;

	private HostsFile(@Nullable Path file, Duration refresh) {
		this.file = file;
		this.refreshNanos = refresh.toNanos();
		this.entries = load(System.nanoTime());
	}

	/**
	 * The hosts file the JDK reads: {@code jdk.net.hosts.file} when set, else the
	 * platform's.
	 * @param refresh how long a read may be used before the file is read again
	 * @return the hosts file
	 */
	public static HostsFile ofJvm(Duration refresh) {
		String configured = System.getProperty(JDK_HOSTS_FILE_PROPERTY);
		return new HostsFile((configured != null && !configured.isBlank()) ? Path.of(configured) : null, refresh);
	}

	/**
	 * A given hosts file.
	 * @param file the file
	 * @param refresh how long a read may be used before the file is read again
	 * @return the hosts file
	 */
	public static HostsFile of(Path file, Duration refresh) {
		return new HostsFile(file, refresh);
	}

	/**
	 * Return the file read, or {@code null} for the platform's hosts file.
	 * @return the file
	 */
	public @Nullable Path file() {
		return this.file;
	}

	@Override
	public @Nullable InetAddress address(String inetHost, ResolvedAddressTypes resolvedAddressTypes) {
		Entries current = fresh();
		String name = inetHost.toLowerCase(Locale.ENGLISH);
		return switch (resolvedAddressTypes) {
			case IPV4_ONLY -> first(current.ipv4(), name);
			case IPV6_ONLY -> first(current.ipv6(), name);
			case IPV4_PREFERRED -> firstOf(first(current.ipv4(), name), current.ipv6(), name);
			case IPV6_PREFERRED -> firstOf(first(current.ipv6(), name), current.ipv4(), name);
		};
	}

	/**
	 * Read the file again at the next lookup, whenever it was last read.
	 */
	public void expire() {
		this.expired = true;
	}

	private Entries fresh() {
		Entries current = this.entries;
		long now = System.nanoTime();
		if (this.expired || now - current.readAt() >= this.refreshNanos) {
			this.expired = false;
			current = load(now);
			this.entries = current;
		}
		return current;
	}

	private Entries load(long now) {
		HostsFileEntriesProvider.Parser parser = HostsFileEntriesProvider.parser();
		// Silently: a missing or unreadable file means no entries, as it does to Netty
		HostsFileEntriesProvider provider = (this.file != null)
				? parser.parseSilently(this.file.toFile(), Charset.defaultCharset()) : parser.parseSilently();
		return new Entries(now, provider.ipv4Entries(), provider.ipv6Entries());
	}

	private static @Nullable InetAddress firstOf(@Nullable InetAddress preferred,
			Map<String, List<InetAddress>> fallback, String name) {
		return (preferred != null) ? preferred : first(fallback, name);
	}

	private static @Nullable InetAddress first(Map<String, List<InetAddress>> entries, String name) {
		List<InetAddress> addresses = entries.get(name);
		return (addresses == null || addresses.isEmpty()) ? null : addresses.get(0);
	}

	private record Entries(long readAt, Map<String, List<InetAddress>> ipv4, Map<String, List<InetAddress>> ipv6) {

	}

}
