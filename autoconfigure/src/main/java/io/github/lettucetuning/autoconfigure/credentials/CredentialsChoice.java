package io.github.lettucetuning.autoconfigure.credentials;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.github.lettucetuning.autoconfigure.diagnostics.InvalidTuningPropertyException;
import io.lettuce.core.RedisCredentialsProvider;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration.WithAuthentication;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.RedisStaticMasterReplicaConfiguration;
import org.springframework.data.redis.connection.lettuce.RedisCredentialsProviderFactory;

/**
 * Which {@link RedisCredentialsProvider} or {@link RedisCredentialsProviderFactory} bean
 * Spring Boot's Redis connection authenticates with, if any, and why.
 * <p>
 * Stock Spring Boot wires no such bean, so an application that works on it and declares
 * one meant it for something else: a second Redis client of its own. Hence
 * {@code lettuce.tuning.credentials.provider=auto} takes a bean only when nothing else is
 * plausible: it is the one marked {@code @Primary} among the default candidates, and
 * Boot's connection details ({@code spring.data.redis.username}, {@code password},
 * {@code url} or a service connection) and any {@code Redis*Configuration} bean Boot
 * connects with supply no credentials of their own. A single bean without
 * {@code @Primary} is not taken: with a password-less Redis, stock Boot works and that
 * bean's credentials would be refused. Several beans and no single primary start as on
 * stock Boot, with one line in the log saying how to pick one. The property naming a bean
 * takes that bean, whatever else is configured.
 *
 * @param beanName the name of the bean taken, or {@code null} for none
 * @param bean the bean taken, or {@code null} for none
 * @param reason why that bean was taken, or why none was
 */
record CredentialsChoice(@Nullable String beanName, @Nullable Object bean, String reason) {

	static final String PROPERTY = "lettuce.tuning.credentials.provider";

	private static final Log logger = LogFactory.getLog(CredentialsChoice.class);

	private static final List<Class<? extends RedisConfiguration>> CONFIGURATION_TYPES = List.of(
			RedisSentinelConfiguration.class, RedisClusterConfiguration.class,
			RedisStaticMasterReplicaConfiguration.class, RedisStandaloneConfiguration.class);

	/**
	 * Choose the bean as the property says.
	 * @param beanFactory the bean factory holding the candidates
	 * @param setting the value of {@value #PROPERTY}
	 * @param connectionDetails Boot's connection details
	 * @return the choice
	 */
	static CredentialsChoice of(ConfigurableListableBeanFactory beanFactory, String setting,
			DataRedisConnectionDetails connectionDetails) {
		String value = setting.trim();
		if (value.equalsIgnoreCase("none")) {
			return none(PROPERTY + "=none");
		}
		if (value.equalsIgnoreCase("auto")) {
			return auto(beanFactory, connectionDetails);
		}
		return named(beanFactory, value);
	}

	private static CredentialsChoice named(ConfigurableListableBeanFactory beanFactory, String name) {
		if (!beanFactory.containsBean(name)) {
			throw invalid(beanFactory, name, "no bean has that name");
		}
		if (!beanFactory.isTypeMatch(name, RedisCredentialsProviderFactory.class)
				&& !beanFactory.isTypeMatch(name, RedisCredentialsProvider.class)) {
			throw invalid(beanFactory, name, "the bean is a " + beanFactory.getType(name)
					+ ", neither a RedisCredentialsProvider nor a RedisCredentialsProviderFactory");
		}
		return new CredentialsChoice(name, beanFactory.getBean(name), "bean '" + name + "' named by " + PROPERTY);
	}

	private static CredentialsChoice auto(ConfigurableListableBeanFactory beanFactory,
			DataRedisConnectionDetails connectionDetails) {
		List<String> candidates = candidates(beanFactory, true);
		if (candidates.isEmpty()) {
			List<String> named = candidates(beanFactory, false);
			return none("no RedisCredentialsProvider or RedisCredentialsProviderFactory bean"
					+ (named.isEmpty() ? "" : " that is a default candidate (" + String.join(", ", named)
							+ ": defaultCandidate or autowireCandidate = false)"));
		}
		List<String> primaries = candidates.stream().filter((name) -> isPrimary(beanFactory, name)).toList();
		if (primaries.size() != 1) {
			String why = (candidates.size() == 1)
					? "bean '" + candidates.get(0) + "' is not marked @Primary, so it may be meant for another Redis"
					: "of beans " + candidates + ", " + ((primaries.isEmpty()) ? "none is" : primaries + " are")
							+ " marked @Primary";
			return notWired(candidates, why);
		}
		String primary = primaries.get(0);
		if (bootHasCredentials(beanFactory, connectionDetails)) {
			return notWired(candidates,
					"spring.data.redis.username or password (or url, a service connection "
							+ "or a Redis*Configuration bean) supplies the credentials, and @Primary bean '" + primary
							+ "' may be meant for another Redis");
		}
		return new CredentialsChoice(primary, beanFactory.getBean(primary), "bean '" + primary
				+ "' is the @Primary credentials bean, and spring.data.redis.username and password are unset");
	}

	// Boot's connection takes a Spring Data configuration bean of one of these types
	// before its connection details; any of them with credentials counts.
	private static boolean bootHasCredentials(ConfigurableListableBeanFactory beanFactory,
			DataRedisConnectionDetails connectionDetails) {
		if (connectionDetails.getUsername() != null || connectionDetails.getPassword() != null) {
			return true;
		}
		for (Class<? extends RedisConfiguration> type : CONFIGURATION_TYPES) {
			if (beanFactory.getBeanProvider(type).getIfUnique() instanceof WithAuthentication configuration
					&& (configuration.getUsername() != null || configuration.getPassword().isPresent())) {
				return true;
			}
		}
		return false;
	}

	private static CredentialsChoice notWired(List<String> candidates, String why) {
		String reason = "none taken: " + why;
		logger.info("lettuce-tuning found credentials beans " + candidates
				+ " and wired none into Spring Boot's Redis connection, which keeps its spring.data.redis.* "
				+ "credentials as on stock Spring Boot: " + why + ". To authenticate with one, set " + PROPERTY
				+ "=<bean name>, or mark it @Primary and leave spring.data.redis.username and password unset; "
				+ "set it to 'none' to silence this message.");
		return none(reason);
	}

	private static CredentialsChoice none(String reason) {
		return new CredentialsChoice(null, null, reason);
	}

	// Beans of either type; in auto, only default candidates (a bean declared
	// defaultCandidate = false or autowireCandidate = false says it is meant for
	// injection by name).
	private static List<String> candidates(ConfigurableListableBeanFactory beanFactory, boolean defaultsOnly) {
		Set<String> names = new LinkedHashSet<>();
		names.addAll(List.of(BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory,
				RedisCredentialsProviderFactory.class)));
		names.addAll(List
			.of(BeanFactoryUtils.beanNamesForTypeIncludingAncestors(beanFactory, RedisCredentialsProvider.class)));
		List<String> candidates = new ArrayList<>();
		for (String name : names) {
			if (!defaultsOnly || isDefaultCandidate(definition(beanFactory, name))) {
				candidates.add(name);
			}
		}
		return candidates;
	}

	private static boolean isDefaultCandidate(@Nullable BeanDefinition definition) {
		if (definition == null) {
			return true;
		}
		return definition.isAutowireCandidate() && (!(definition instanceof AbstractBeanDefinition abstractDefinition)
				|| abstractDefinition.isDefaultCandidate());
	}

	private static boolean isPrimary(ConfigurableListableBeanFactory beanFactory, String name) {
		BeanDefinition definition = definition(beanFactory, name);
		return definition != null && definition.isPrimary();
	}

	// A singleton registered without a definition has none.
	private static @Nullable BeanDefinition definition(ConfigurableListableBeanFactory beanFactory, String name) {
		try {
			return beanFactory.getMergedBeanDefinition(name);
		}
		catch (NoSuchBeanDefinitionException ex) {
			return null;
		}
	}

	private static InvalidTuningPropertyException invalid(ConfigurableListableBeanFactory beanFactory, String name,
			String reason) {
		List<String> candidates = candidates(beanFactory, false);
		String found = candidates.isEmpty() ? "this application declares none"
				: "this application declares " + candidates;
		return new InvalidTuningPropertyException(PROPERTY, name, reason,
				"Set " + PROPERTY + " to the name of a RedisCredentialsProvider or RedisCredentialsProviderFactory "
						+ "bean (" + found + "), to 'auto' (the default: the @Primary bean, only when "
						+ "spring.data.redis.username and password are unset) or to 'none'.");
	}

}
