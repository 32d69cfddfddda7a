package io.github.lettucetuning.autoconfigure;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * What the application itself set among Spring Boot's properties. Boot's properties
 * classes hold a default in many fields (-1ms for the pool's max-wait, true for dynamic
 * refresh sources), so their getters cannot tell a choice from a default; the environment
 * can. lettuce-tuning supplies its tuned default for a Boot property only when this says
 * the application left it unset.
 *
 * @since 0.1.0
 */
// Works around Boot's property classes holding defaults, so a getter cannot tell a set
// value from a default:
// docs/upstream.md#telling-boots-defaults-from-choices
public final class ExplicitProperties {

	private final Binder binder;

	private ExplicitProperties(Binder binder) {
		this.binder = binder;
	}

	/**
	 * Return the properties the given environment sets.
	 * @param environment the application's environment
	 * @return its explicit properties
	 */
	public static ExplicitProperties of(Environment environment) {
		return new ExplicitProperties(Binder.get(environment));
	}

	/**
	 * Return whether the application set the given property, in any form relaxed binding
	 * accepts (YAML, properties, an environment variable, a system property).
	 * @param name the canonical property name, e.g.
	 * {@code spring.data.redis.lettuce.pool.max-wait}
	 * @return whether it is set
	 */
	public boolean isSet(String name) {
		return this.binder.bind(name, Bindable.of(String.class)).isBound();
	}

}
