package io.github.lettucetuning.autoconfigure.metrics;

import io.lettuce.core.metrics.CommandLatencyRecorder;
import io.lettuce.core.resource.ClientResources;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;

/**
 * Sets the client resources' command latency recorder: the single
 * {@link CommandLatencyRecorder} bean (lettuce-tuning's Micrometer recorder, or the
 * user's), else {@link CommandLatencyRecorder#disabled()}. Either way Lettuce's default
 * HdrHistogram collector is never created.
 */
final class CommandLatencyRecorderCustomizer implements ClientResourcesBuilderCustomizer {

	private final ObjectProvider<CommandLatencyRecorder> recorder;

	CommandLatencyRecorderCustomizer(ObjectProvider<CommandLatencyRecorder> recorder) {
		this.recorder = recorder;
	}

	@Override
	public void customize(ClientResources.Builder builder) {
		builder.commandLatencyRecorder(this.recorder.getIfUnique(CommandLatencyRecorder::disabled));
	}

}
