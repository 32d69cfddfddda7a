package io.github.lettucetuning.socket;

import java.net.InetSocketAddress;
import java.time.Duration;

import io.lettuce.core.resource.Transports;
import io.netty.channel.socket.SocketChannel;
import io.netty.resolver.AddressResolverGroup;
import io.netty.resolver.dns.DefaultDnsCache;
import io.netty.resolver.dns.DefaultDnsCnameCache;
import io.netty.resolver.dns.DnsAddressResolverGroup;
import io.netty.resolver.dns.DnsCache;
import io.netty.resolver.dns.DnsCnameCache;
import io.netty.resolver.dns.DnsNameResolverBuilder;
import io.netty.resolver.dns.NoopDnsCache;
import io.netty.resolver.dns.NoopDnsCnameCache;
import org.jspecify.annotations.Nullable;

/**
 * The address resolver of one Lettuce client: Netty's non-blocking DNS resolver, as
 * Lettuce's default, with three differences. Answers are reused for at most
 * {@code maxTtl} (a shorter DNS TTL still wins; Lettuce's default keeps whatever TTL the
 * DNS answer carries); the hosts file is the JVM's and is re-read after the same interval
 * ({@link HostsFile}); and the resolver belongs to this client and is closed with it,
 * where Lettuce shares one resolver, never closed, across every client of the JVM.
 * <p>
 * Lettuce resolves a host name on every connect and reconnect through this resolver, so a
 * connection that is lost finds a moved address once the cached answer is at most
 * {@code maxTtl} old. A connection that stays open keeps its address: nothing re-resolves
 * a working connection.
 *
 * @since 0.1.0
 */
// Works around Lettuce's one resolver per JVM, which keeps answers for their TTL and
// reads /etc/hosts once:
// docs/upstream.md#a-resolver-per-client
public final class ClientAddressResolver implements AutoCloseable {

	/**
	 * Longest time an answer is reused, unless configured otherwise.
	 */
	public static final Duration DEFAULT_MAX_TTL = Duration.ofSeconds(5);

	private final Duration maxTtl;

	private final HostsFile hostsFile;

	private final Group group;

	private final DnsCache cache;

	private final DnsCnameCache cnameCache;

	private ClientAddressResolver(Duration maxTtl, HostsFile hostsFile) {
		if (maxTtl.isNegative() || maxTtl.toSeconds() > Integer.MAX_VALUE) {
			throw new IllegalArgumentException("maxTtl must be between 0s and " + Integer.MAX_VALUE + "s");
		}
		this.maxTtl = maxTtl;
		this.hostsFile = hostsFile;
		int ttlSeconds = (int) maxTtl.toSeconds();
		// Negative answers are not cached: a name that a failover briefly removes is
		// asked again on the next reconnect. One cache for the resolvers of every event
		// loop, so that an answer can be forgotten for all of them.
		this.cache = (ttlSeconds > 0) ? new DefaultDnsCache(0, ttlSeconds, 0) : NoopDnsCache.INSTANCE;
		this.cnameCache = (ttlSeconds > 0) ? new DefaultDnsCnameCache(0, ttlSeconds) : NoopDnsCnameCache.INSTANCE;
		DnsNameResolverBuilder builder = new DnsNameResolverBuilder()
			.datagramChannelType(Transports.datagramChannelClass())
			.socketChannelType(Transports.socketChannelClass().asSubclass(SocketChannel.class))
			.resolveCache(this.cache)
			.cnameCache(this.cnameCache)
			.hostsFileEntriesResolver(hostsFile);
		this.group = new Group(builder, this);
	}

	/**
	 * A resolver reusing answers for at most {@code maxTtl} (whole seconds; 0 asks on
	 * every connect), with the JVM's hosts file re-read after the same interval.
	 * @param maxTtl the longest time an answer is reused
	 * @return the resolver
	 */
	public static ClientAddressResolver create(Duration maxTtl) {
		return new ClientAddressResolver(maxTtl, HostsFile.ofJvm(maxTtl));
	}

	/**
	 * Return the resolver whose group Lettuce's client resources hold.
	 * @param group the client resources' address resolver group
	 * @return the resolver, or {@code null} if the group is not one of this class
	 */
	public static @Nullable ClientAddressResolver of(AddressResolverGroup<?> group) {
		return (group instanceof Group ours) ? ours.owner : null;
	}

	/**
	 * Return the resolver group to give Lettuce's client resources.
	 * @return the resolver group
	 */
	public AddressResolverGroup<InetSocketAddress> group() {
		return this.group;
	}

	/**
	 * Return the longest time an answer is reused.
	 * @return the longest time an answer is reused
	 */
	public Duration maxTtl() {
		return this.maxTtl;
	}

	/**
	 * Return the hosts file consulted before DNS.
	 * @return the hosts file
	 */
	public HostsFile hostsFile() {
		return this.hostsFile;
	}

	/**
	 * Forget every answer: the cached DNS answers, and the hosts file as last read, so
	 * that the next connect asks afresh. For a connection that found its server moved
	 * while it stayed open (a demoted primary). All of them, not only the endpoint's
	 * name: a client talks to a few names, and the address a connection was made to need
	 * not carry the name it was resolved from.
	 */
	public void forgetAnswers() {
		this.cache.clear();
		this.cnameCache.clear();
		this.hostsFile.expire();
	}

	/**
	 * Close the resolvers and their sockets; call after the client resources shut down.
	 */
	@Override
	public void close() {
		this.group.close();
	}

	// Netty's group, marked as ours so that the effective configuration can tell it
	// apart.
	private static final class Group extends DnsAddressResolverGroup {

		private final ClientAddressResolver owner;

		Group(DnsNameResolverBuilder builder, ClientAddressResolver owner) {
			super(builder);
			this.owner = owner;
		}

	}

}
