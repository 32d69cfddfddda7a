package io.github.lettucetuning.testsupport.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * Immutable configuration of one {@code redis-server} node. It is rendered into a
 * {@code redis.conf} inside the node directory: a fixed test-friendly base (loopback
 * only, no persistence, {@code DEBUG} enabled) followed by the extra directives, so an
 * extra directive overrides a base one.
 */
public final class RedisServerConfig {

	/**
	 * How long a node may take to answer {@code PING} after its process started.
	 */
	public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(15);

	/**
	 * The proc title keeps the config file path visible in {@code /proc/<pid>/cmdline},
	 * which is how a later JVM recognises an orphaned node of ours.
	 */
	static final String PROC_TITLE_TEMPLATE = "{title} {listen-addr} {server-mode} {config-file}";

	private static final Pattern PLAIN_ARGUMENT = Pattern.compile("[A-Za-z0-9_.,:/@+~*=<>&^%!-]+");

	private final String name;

	private final int port;

	private final @Nullable String password;

	private final boolean sentinel;

	private final Duration startupTimeout;

	private final List<Directive> directives;

	private RedisServerConfig(String name, int port, @Nullable String password, boolean sentinel,
			Duration startupTimeout, List<Directive> directives) {
		this.name = name;
		this.port = port;
		this.password = password;
		this.sentinel = sentinel;
		this.startupTimeout = startupTimeout;
		this.directives = List.copyOf(directives);
	}

	/**
	 * Return the default configuration: a node called {@code redis} on a free port.
	 * @return the default configuration
	 */
	public static RedisServerConfig defaults() {
		return new RedisServerConfig("redis", 0, null, false, DEFAULT_STARTUP_TIMEOUT, List.of());
	}

	/**
	 * Name the node; the name shows up in logs, directory names and {@code toString()}.
	 * @param name the name
	 * @return a new configuration
	 */
	public RedisServerConfig withName(String name) {
		return new RedisServerConfig(name, this.port, this.password, this.sentinel, this.startupTimeout,
				this.directives);
	}

	/**
	 * Listen on another loopback address than {@value RedisNode#HOST}, e.g.
	 * {@code 127.0.0.2}: two nodes can then share a port, as one server moving to another
	 * address would.
	 * @param address a loopback address
	 * @return a new configuration
	 */
	public RedisServerConfig withBindAddress(String address) {
		return withDirective("bind", address);
	}

	/**
	 * Return the address the node listens on: the last {@code bind} directive's, else
	 * {@value RedisNode#HOST}.
	 * @return the address
	 */
	public String host() {
		String host = RedisNode.HOST;
		for (Directive directive : this.directives) {
			if ("bind".equals(directive.name()) && !directive.arguments().isEmpty()) {
				host = directive.arguments().get(0);
			}
		}
		return host;
	}

	/**
	 * Use a fixed port instead of a free one.
	 * @param port the port, {@code 0} for a free one
	 * @return a new configuration
	 */
	public RedisServerConfig withPort(int port) {
		return new RedisServerConfig(this.name, port, this.password, this.sentinel, this.startupTimeout,
				this.directives);
	}

	/**
	 * Require a password ({@code requirepass}); the node handle authenticates with it.
	 * @param password the password or {@code null} for none
	 * @return a new configuration
	 */
	public RedisServerConfig withPassword(@Nullable String password) {
		return new RedisServerConfig(this.name, this.port, password, this.sentinel, this.startupTimeout,
				this.directives);
	}

	/**
	 * Add an ACL user ({@code user <name> on ><password> <rules>}).
	 * @param username the user name
	 * @param password the password
	 * @param rules ACL rules, all keys, channels and commands when none are given
	 * @return a new configuration
	 */
	public RedisServerConfig withAclUser(String username, String password, String... rules) {
		List<String> arguments = new ArrayList<>(List.of(username, "on", ">" + password));
		arguments.addAll((rules.length > 0) ? Arrays.asList(rules) : List.of("~*", "&*", "+@all"));
		return withDirective("user", arguments.toArray(String[]::new));
	}

	/**
	 * Run the node as a Sentinel ({@code redis-server redis.conf --sentinel}).
	 * @param sentinel whether the node is a Sentinel
	 * @return a new configuration
	 */
	public RedisServerConfig withSentinel(boolean sentinel) {
		return new RedisServerConfig(this.name, this.port, this.password, sentinel, this.startupTimeout,
				this.directives);
	}

	/**
	 * Change how long the node may take to answer {@code PING}.
	 * @param startupTimeout the timeout
	 * @return a new configuration
	 */
	public RedisServerConfig withStartupTimeout(Duration startupTimeout) {
		return new RedisServerConfig(this.name, this.port, this.password, this.sentinel, startupTimeout,
				this.directives);
	}

	/**
	 * Add one configuration directive, e.g.
	 * {@code withDirective("cluster-enabled", "yes")}.
	 * @param name the directive name
	 * @param arguments its arguments
	 * @return a new configuration
	 */
	public RedisServerConfig withDirective(String name, String... arguments) {
		List<Directive> directives = new ArrayList<>(this.directives);
		directives.add(new Directive(name, List.of(arguments)));
		return new RedisServerConfig(this.name, this.port, this.password, this.sentinel, this.startupTimeout,
				directives);
	}

	/**
	 * Also accept TLS connections, on a second port the launcher picks
	 * ({@link RedisNode#tlsPort()}); the plain port stays open for the test's own
	 * commands. The files can be replaced and reloaded at runtime with
	 * {@code CONFIG SET tls-cert-file ... tls-key-file ... tls-ca-cert-file ...}.
	 * @param certificate the server's certificate (PEM)
	 * @param key the server's private key (PEM)
	 * @param caCertificates the CA certificates the server trusts client certificates of
	 * (PEM)
	 * @param authClients whether a client must present a certificate that the CA
	 * certificates vouch for ({@code tls-auth-clients yes})
	 * @return a new configuration
	 */
	public RedisServerConfig withTls(Path certificate, Path key, Path caCertificates, boolean authClients) {
		return withDirective("tls-cert-file", certificate.toAbsolutePath().toString())
			.withDirective("tls-key-file", key.toAbsolutePath().toString())
			.withDirective("tls-ca-cert-file", caCertificates.toAbsolutePath().toString())
			.withDirective("tls-auth-clients", authClients ? "yes" : "no");
	}

	/**
	 * Return whether the node accepts TLS connections: whether it has a certificate.
	 * @return whether TLS is enabled
	 */
	public boolean isTlsEnabled() {
		return this.directives.stream().anyMatch((directive) -> "tls-cert-file".equals(directive.name()));
	}

	/**
	 * Add directives written like {@code redis-server} command line arguments, e.g.
	 * {@code withArguments("--cluster-enabled", "yes", "--cluster-node-timeout", "2000")}.
	 * @param arguments the arguments, each directive starting with {@code --}
	 * @return a new configuration
	 */
	public RedisServerConfig withArguments(String... arguments) {
		List<Directive> directives = new ArrayList<>(this.directives);
		directives.addAll(parseArguments(arguments));
		return new RedisServerConfig(this.name, this.port, this.password, this.sentinel, this.startupTimeout,
				directives);
	}

	public String name() {
		return this.name;
	}

	public int port() {
		return this.port;
	}

	public @Nullable String password() {
		return this.password;
	}

	public boolean isSentinel() {
		return this.sentinel;
	}

	public Duration startupTimeout() {
		return this.startupTimeout;
	}

	public List<Directive> directives() {
		return this.directives;
	}

	/**
	 * Return whether the node runs in cluster mode, which also needs the cluster bus port
	 * (port + 10000) to be free.
	 * @return whether cluster mode is enabled
	 */
	public boolean isClusterEnabled() {
		boolean enabled = false;
		for (Directive directive : this.directives) {
			if (directive.name().equalsIgnoreCase("cluster-enabled")) {
				enabled = !directive.arguments().isEmpty() && "yes".equalsIgnoreCase(directive.arguments().get(0));
			}
		}
		return enabled;
	}

	/**
	 * Render the {@code redis.conf} lines for a node.
	 * @param directory the node directory
	 * @param port the port the node listens on
	 * @return the lines of the configuration file
	 */
	public List<String> render(Path directory, int port) {
		return render(directory, port, 0);
	}

	/**
	 * Render the {@code redis.conf} lines for a node that may accept TLS connections.
	 * @param directory the node directory
	 * @param port the port the node listens on
	 * @param tlsPort the port it accepts TLS connections on, {@code 0} for none
	 * @return the lines of the configuration file
	 */
	public List<String> render(Path directory, int port, int tlsPort) {
		List<Directive> all = new ArrayList<>();
		all.add(directive("port", Integer.toString(port)));
		if (tlsPort > 0) {
			all.add(directive("tls-port", Integer.toString(tlsPort)));
			// With tls-cluster the bus would follow the TLS port; it stays at the one the
			// launcher reserved beside the plain port.
			if (isClusterEnabled()) {
				all.add(directive("cluster-port", Integer.toString(port + FreePorts.CLUSTER_BUS_PORT_OFFSET)));
			}
		}
		all.add(directive("bind", host()));
		all.add(directive("dir", directory.toAbsolutePath().toString()));
		all.add(directive("logfile", RedisNode.LOG_FILE_NAME));
		all.add(directive("daemonize", "no"));
		all.add(directive("save", ""));
		all.add(directive("appendonly", "no"));
		all.add(directive("protected-mode", "no"));
		all.add(directive("enable-debug-command", "yes"));
		// Diskless replication waits 5 s by default to batch replicas: tests want sync
		// now
		all.add(directive("repl-diskless-sync-delay", "0"));
		all.add(directive("proc-title-template", PROC_TITLE_TEMPLATE));
		if (this.password != null) {
			all.add(directive("requirepass", this.password));
		}
		// The bind address was rendered above
		this.directives.stream().filter((directive) -> !"bind".equals(directive.name())).forEach(all::add);
		return all.stream().map(Directive::render).toList();
	}

	private static Directive directive(String name, String... arguments) {
		return new Directive(name, List.of(arguments));
	}

	static List<Directive> parseArguments(String... arguments) {
		List<Directive> directives = new ArrayList<>();
		String name = null;
		List<String> values = new ArrayList<>();
		for (String argument : arguments) {
			if (argument.startsWith("--") && argument.length() > 2) {
				if (name != null) {
					directives.add(new Directive(name, values));
				}
				name = argument.substring(2);
				values = new ArrayList<>();
			}
			else if (name == null) {
				throw new IllegalArgumentException(
						"Expected a '--directive' before '" + argument + "' in " + Arrays.toString(arguments));
			}
			else {
				values.add(argument);
			}
		}
		if (name != null) {
			directives.add(new Directive(name, values));
		}
		return directives;
	}

	static String quote(String argument) {
		if (PLAIN_ARGUMENT.matcher(argument).matches()) {
			return argument;
		}
		StringBuilder quoted = new StringBuilder("\"");
		for (char character : argument.toCharArray()) {
			switch (character) {
				case '"', '\\' -> quoted.append('\\').append(character);
				case '\n' -> quoted.append("\\n");
				case '\r' -> quoted.append("\\r");
				case '\t' -> quoted.append("\\t");
				default -> quoted.append(character);
			}
		}
		return quoted.append('"').toString();
	}

	@Override
	public String toString() {
		return "RedisServerConfig[name=" + this.name + ", port=" + this.port + ", sentinel=" + this.sentinel
				+ ", directives=" + this.directives + "]";
	}

	/**
	 * One configuration file directive.
	 *
	 * @param name the directive name
	 * @param arguments its arguments
	 */
	public record Directive(String name, List<String> arguments) {

		public Directive {
			arguments = List.copyOf(arguments);
		}

		/**
		 * Render as one {@code redis.conf} line, quoting arguments that need it.
		 * @return the line
		 */
		public String render() {
			StringBuilder line = new StringBuilder(this.name);
			for (String argument : this.arguments) {
				line.append(' ').append(quote(argument));
			}
			return line.toString();
		}

	}

}
