package io.github.lettucetuning.testsupport.fault;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Drops a port with a dedicated {@code nft} table per port, so removing the blackhole is
 * a single {@code delete table} that cannot touch anybody else's rules.
 */
final class NftablesFirewall implements Firewall {

	private static final String TABLE_PREFIX = "lettuce_tuning_blackhole_";

	@Override
	public String name() {
		return "nft";
	}

	@Override
	public @Nullable String unavailableReason() {
		Optional<Path> nft = CommandRunner.find("nft");
		if (nft.isEmpty()) {
			return "nft is not installed (Debian/Ubuntu: apt-get install -y nftables)";
		}
		CommandRunner.Result result = CommandRunner.run(List.of(nft.get().toString(), "list", "tables"), null);
		return result.succeeded() ? null : "'nft list tables' failed: " + result.output();
	}

	@Override
	public void block(int port) {
		String table = TABLE_PREFIX + port;
		String script = """
				table inet %1$s {
					chain input { type filter hook input priority -10; policy accept; tcp dport %2$d drop; }
					chain output { type filter hook output priority -10; policy accept; tcp sport %2$d drop; }
				}
				""".formatted(table, port);
		execute(List.of(nft(), "-f", "-"), script);
	}

	@Override
	public void unblock(int port) {
		execute(List.of(nft(), "delete", "table", "inet", TABLE_PREFIX + port), null);
	}

	private static String nft() {
		return CommandRunner.find("nft").orElseThrow().toString();
	}

	private static void execute(List<String> command, @Nullable String input) {
		CommandRunner.Result result = CommandRunner.run(command, input);
		if (!result.succeeded()) {
			throw new IllegalStateException("'" + String.join(" ", command) + "' failed: " + result.output());
		}
	}

}
