package io.github.lettucetuning.testsupport.fault;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Drops a port with two {@code iptables} rules: {@code INPUT --dport} (requests) and
 * {@code OUTPUT --sport} (replies). On loopback both directions pass both chains, so
 * established connections stall exactly like behind a dead network link.
 */
final class IptablesFirewall implements Firewall {

	@Override
	public String name() {
		return "iptables";
	}

	@Override
	public @Nullable String unavailableReason() {
		Optional<Path> iptables = CommandRunner.find("iptables");
		if (iptables.isEmpty()) {
			return "iptables is not installed (Debian/Ubuntu: apt-get install -y iptables)";
		}
		CommandRunner.Result result = CommandRunner.run(List.of(iptables.get().toString(), "-w", "-L", "-n"), null);
		return result.succeeded() ? null : "'iptables -L -n' failed: " + result.output();
	}

	@Override
	public void block(int port) {
		run("-I", port);
	}

	@Override
	public void unblock(int port) {
		run("-D", port);
	}

	private void run(String action, int port) {
		String iptables = CommandRunner.find("iptables").orElseThrow().toString();
		String portText = Integer.toString(port);
		execute(List.of(iptables, "-w", action, "INPUT", "-p", "tcp", "--dport", portText, "-j", "DROP"));
		execute(List.of(iptables, "-w", action, "OUTPUT", "-p", "tcp", "--sport", portText, "-j", "DROP"));
	}

	private static void execute(List<String> command) {
		CommandRunner.Result result = CommandRunner.run(new ArrayList<>(command), null);
		if (!result.succeeded()) {
			throw new IllegalStateException("'" + String.join(" ", command) + "' failed: " + result.output());
		}
	}

}
