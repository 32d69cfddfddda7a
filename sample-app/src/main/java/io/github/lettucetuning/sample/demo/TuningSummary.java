package io.github.lettucetuning.sample.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.lettucetuning.advice.EffectiveConfiguration;
import io.github.lettucetuning.advice.Finding;
import io.github.lettucetuning.endpoint.LettuceDescriptor;
import io.github.lettucetuning.endpoint.LettuceEndpoint;
import org.jspecify.annotations.Nullable;

/**
 * A few lines that summarise what {@code /actuator/lettuce} reports: the effective
 * tuning, the live state and the advice.
 */
final class TuningSummary {

	private TuningSummary() {
	}

	static List<String> of(@Nullable LettuceEndpoint endpoint) {
		if (endpoint == null) {
			return List.of("lettuce-tuning is disabled: this is Spring Boot's stock Lettuce setup.");
		}
		LettuceDescriptor descriptor = endpoint.lettuce();
		EffectiveConfiguration configuration = descriptor.configuration();
		EffectiveConfiguration.Socket socket = configuration.socket();
		List<String> lines = new ArrayList<>();
		lines.add("mode " + configuration.connections().mode() + ", " + configuration.connections().shared()
				+ " shared connection(s), " + descriptor.state().connections().open() + " open; command timeout "
				+ configuration.commands().timeout().toMillis() + "ms");
		lines.add("timer " + configuration.timer().type() + tick(configuration.timer()) + ", pending "
				+ descriptor.state().timer().pending() + ", expired " + descriptor.state().timer().expired());
		lines.add("transport " + socket.transport() + ", keep-alive " + onOff(socket.keepAlive().active())
				+ ", TCP_USER_TIMEOUT " + onOff(socket.tcpUserTimeout().active())
				+ ((socket.tcpUserTimeout().timeout() != null)
						? " (" + socket.tcpUserTimeout().timeout().toSeconds() + "s)" : ""));
		if (configuration.pool() != null) {
			Duration maxWait = configuration.pool().maxWait();
			lines.add("dedicated pool: max-active " + configuration.pool().maxActive() + ", max-wait "
					+ ((maxWait != null) ? maxWait.toMillis() + "ms" : "unbounded"));
		}
		if (descriptor.advice().isEmpty()) {
			lines.add("advice: none");
		}
		for (Finding finding : descriptor.advice()) {
			lines.add("advice [" + finding.severity() + "] " + finding.id() + ": " + finding.fix());
		}
		return lines;
	}

	private static String tick(EffectiveConfiguration.Timer timer) {
		return (timer.tick() != null) ? " (tick " + timer.tick().toMillis() + "ms)" : "";
	}

	private static String onOff(boolean active) {
		return active ? "on" : "off";
	}

}
