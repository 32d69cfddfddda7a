package io.github.lettucetuning.testsupport.fault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * Drops every TCP packet to and from a local port, so that connections neither fail nor
 * answer: the network partition a client only notices through its timeouts. Needs root
 * and a working {@code iptables} (preferred) or {@code nft}; tests check first:
 * <pre class="code">
 * NetworkBlackhole.Availability availability = NetworkBlackhole.availability();
 * assumeTrue(availability.available(), availability.reason());
 * try (NetworkBlackhole blackhole = Faults.blackhole(node)) {
 *     // requests to node time out
 * }
 * </pre> Active blackholes are removed by {@link #heal()}, by {@link #close()} and on JVM
 * shutdown.
 */
public final class NetworkBlackhole implements Fault {

	/**
	 * System property forcing a backend: {@code iptables} or {@code nft}.
	 */
	public static final String BACKEND_PROPERTY = "lettuce.tuning.blackhole-backend";

	private static final Set<NetworkBlackhole> active = ConcurrentHashMap.newKeySet();

	private static final AtomicBoolean shutdownHookRegistered = new AtomicBoolean();

	private static volatile @Nullable Selection selection;

	private final int port;

	private final Firewall firewall;

	private NetworkBlackhole(int port, Firewall firewall) {
		this.port = port;
		this.firewall = firewall;
	}

	/**
	 * Tell whether blackholing works on this machine and why not if it does not. The
	 * check runs once per JVM.
	 * @return the availability
	 */
	public static Availability availability() {
		return select().availability();
	}

	/**
	 * Drop all traffic to and from a local port.
	 * @param port the port
	 * @return the active blackhole
	 * @throws IllegalStateException if blackholing is unavailable or already active on
	 * the port
	 */
	public static NetworkBlackhole drop(int port) {
		Selection current = select();
		if (current.firewall() == null) {
			throw new IllegalStateException("Network blackholing is unavailable: " + current.availability().reason());
		}
		return drop(port, current.firewall());
	}

	static NetworkBlackhole drop(int port, Firewall firewall) {
		NetworkBlackhole blackhole = new NetworkBlackhole(port, firewall);
		if (active.stream().anyMatch((existing) -> existing.port == port)) {
			throw new IllegalStateException("Port " + port + " is already blackholed");
		}
		registerShutdownHookOnce();
		firewall.block(port);
		active.add(blackhole);
		return blackhole;
	}

	public int port() {
		return this.port;
	}

	/**
	 * Return the tool used: {@code iptables} or {@code nft}.
	 * @return the backend name
	 */
	public String backend() {
		return this.firewall.name();
	}

	public boolean isActive() {
		return active.contains(this);
	}

	/**
	 * Remove the rules; idempotent.
	 */
	@Override
	public void heal() {
		if (active.remove(this)) {
			this.firewall.unblock(this.port);
		}
	}

	private static void healAll() {
		for (NetworkBlackhole blackhole : List.copyOf(active)) {
			try {
				blackhole.heal();
			}
			catch (RuntimeException ex) {
				// Keep healing the others
			}
		}
	}

	private static void registerShutdownHookOnce() {
		if (shutdownHookRegistered.compareAndSet(false, true)) {
			// Rules outlive the JVM: never leave a port blackholed after the tests
			Runtime.getRuntime()
				.addShutdownHook(new Thread(NetworkBlackhole::healAll, "lettuce-tuning-blackhole-heal"));
		}
	}

	private static Selection select() {
		Selection current = selection;
		if (current == null) {
			current = detect();
			selection = current;
		}
		return current;
	}

	private static Selection detect() {
		String notRoot = unlessRoot();
		if (notRoot != null) {
			return Selection.unavailable(notRoot);
		}
		String forced = System.getProperty(BACKEND_PROPERTY);
		List<Firewall> candidates = List.of(new IptablesFirewall(), new NftablesFirewall());
		StringBuilder reasons = new StringBuilder();
		for (Firewall firewall : candidates) {
			if (forced != null && !forced.equals(firewall.name())) {
				continue;
			}
			String reason = firewall.unavailableReason();
			if (reason == null) {
				return new Selection(firewall, new Availability(true, "available with " + firewall.name()));
			}
			reasons.append((reasons.length() > 0) ? "; " : "").append(reason);
		}
		return Selection.unavailable("Network blackholing needs iptables or nft: " + reasons);
	}

	private static @Nullable String unlessRoot() {
		try {
			for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
				if (line.startsWith("Uid:")) {
					String effectiveUid = line.substring(4).trim().split("\\s+")[1];
					return "0".equals(effectiveUid) ? null
							: "Network blackholing needs root (effective uid is " + effectiveUid + ")";
				}
			}
		}
		catch (IOException | RuntimeException ex) {
			// No /proc: fall back to the user name
		}
		return "root".equals(System.getProperty("user.name")) ? null
				: "Network blackholing needs root (running as " + System.getProperty("user.name") + ")";
	}

	@Override
	public String toString() {
		return "NetworkBlackhole[port=" + this.port + ", backend=" + backend() + ", active=" + isActive() + "]";
	}

	/**
	 * Skip the calling test, saying why, where blackholing cannot work here; fail it
	 * instead when the {@code CI} environment variable is {@code true}, since CI runs as
	 * root with {@code iptables} installed and a skipped fault test there would hide a
	 * broken set-up.
	 */
	public static void assumeAvailable() {
		Availability availability = availability();
		if (!availability.available() && "true".equalsIgnoreCase(System.getenv("CI"))) {
			throw new AssertionError("Network blackholing must work in CI (CI=true): " + availability.reason());
		}
		Assumptions.assumeTrue(availability.available(), "Skipping a blackhole test: " + availability.reason());
	}

	/**
	 * Whether blackholing can be used, with a reason suitable for {@code assumeTrue}.
	 *
	 * @param available whether it can be used
	 * @param reason the backend in use or why it is unavailable
	 */
	public record Availability(boolean available, String reason) {

	}

	private record Selection(@Nullable Firewall firewall, Availability availability) {

		static Selection unavailable(String reason) {
			return new Selection(null, new Availability(false, reason));
		}

	}

}
