package io.github.lettucetuning.metrics;

import java.util.Locale;

import io.github.lettucetuning.state.ClientEventRecorder;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds counters over a {@link ClientEventRecorder}: {@code lettuce.tuning.reconnects},
 * {@code lettuce.tuning.reconnect.failures}, {@code lettuce.tuning.topology.refreshes},
 * {@code lettuce.tuning.topology.refresh.triggers} (tag {@code trigger}),
 * {@code lettuce.tuning.redirections} (tag {@code type}: {@code moved} or {@code ask})
 * {@code lettuce.tuning.command.timeouts} and {@code lettuce.tuning.reauthentications}
 * (tag {@code outcome}: {@code success} or {@code failure}). Each name says what it
 * counts, so none has a base unit that Prometheus would append again
 * ({@code lettuce_tuning_reconnects_total}, not
 * {@code lettuce_tuning_reconnects_attempts_total}). Function counters read the recorder
 * when scraped, so events counted before the registry was bound are not lost.
 *
 * @since 0.1.0
 */
public final class ClientEventMetrics implements MeterBinder {

	private final ClientEventRecorder recorder;

	/**
	 * Create a binder for the given recorder.
	 * @param recorder the recorder of client events
	 */
	public ClientEventMetrics(ClientEventRecorder recorder) {
		this.recorder = recorder;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		FunctionCounter.builder("lettuce.tuning.reconnects", this.recorder, ClientEventRecorder::reconnectAttempts)
			.description("Reconnect attempts after a connection was lost")
			.register(registry);
		FunctionCounter
			.builder("lettuce.tuning.reconnect.failures", this.recorder, ClientEventRecorder::reconnectFailures)
			.description("Reconnect attempts that failed")
			.register(registry);
		FunctionCounter
			.builder("lettuce.tuning.topology.refreshes", this.recorder, ClientEventRecorder::topologyChanges)
			.description("Cluster topology refreshes that changed the client's view of the cluster")
			.register(registry);
		for (RefreshTrigger trigger : RefreshTrigger.values()) {
			FunctionCounter
				.builder("lettuce.tuning.topology.refresh.triggers", this.recorder, (r) -> r.refreshTriggers(trigger))
				.description("Adaptive topology refresh triggers that fired")
				.tag("trigger", trigger.name().toLowerCase(Locale.ROOT).replace('_', '-'))
				.register(registry);
		}
		FunctionCounter.builder("lettuce.tuning.redirections", this.recorder, ClientEventRecorder::movedRedirections)
			.description("Cluster redirections followed")
			.tag("type", "moved")
			.register(registry);
		FunctionCounter.builder("lettuce.tuning.redirections", this.recorder, ClientEventRecorder::askRedirections)
			.description("Cluster redirections followed")
			.tag("type", "ask")
			.register(registry);
		FunctionCounter.builder("lettuce.tuning.command.timeouts", this.recorder, ClientEventRecorder::commandTimeouts)
			.description("Redis commands that failed with a command timeout")
			.register(registry);
		FunctionCounter
			.builder("lettuce.tuning.reauthentications", this.recorder, ClientEventRecorder::reauthentications)
			.description("Live connections re-authenticated with new credentials")
			.tag("outcome", "success")
			.register(registry);
		FunctionCounter
			.builder("lettuce.tuning.reauthentications", this.recorder, ClientEventRecorder::reauthenticationFailures)
			.description("Live connections re-authenticated with new credentials")
			.tag("outcome", "failure")
			.register(registry);
	}

}
