package io.github.lettucetuning.autoconfigure.nearcache;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code lettuce.tuning.near-cache.caches} names at least one cache, however
 * the list is written (comma-separated or indexed), which {@code @ConditionalOnProperty}
 * cannot tell.
 */
class OnNearCacheCaches extends SpringBootCondition {

	static final String PROPERTY = "lettuce.tuning.near-cache.caches";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		List<String> caches = Binder.get(context.getEnvironment())
			.bind(PROPERTY, Bindable.listOf(String.class))
			.orElse(List.of());
		return caches.isEmpty() ? ConditionOutcome.noMatch(PROPERTY + " names no cache")
				: ConditionOutcome.match(PROPERTY + " names " + caches);
	}

}
