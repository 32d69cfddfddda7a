package io.github.lettucetuning.testsupport;

import java.lang.annotation.Annotation;
import java.time.Duration;

import io.github.lettucetuning.testsupport.server.RedisServerConfig;
import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import io.github.lettucetuning.testsupport.topology.RedisStandalone;
import io.github.lettucetuning.testsupport.topology.RedisTopology;
import io.github.lettucetuning.testsupport.topology.TopologyKind;

/**
 * How each {@link TopologyKind} is declared on a test class ({@link RedisStandaloneTest},
 * {@link RedisSentinelTest}, {@link RedisClusterTest}) and started from the annotation's
 * attributes.
 */
final class TopologyAnnotations {

	private TopologyAnnotations() {
	}

	static Class<? extends Annotation> of(TopologyKind kind) {
		return switch (kind) {
			case STANDALONE -> RedisStandaloneTest.class;
			case SENTINEL -> RedisSentinelTest.class;
			case CLUSTER -> RedisClusterTest.class;
		};
	}

	static RedisTopology start(TopologyKind kind, Annotation attributes) {
		return switch (kind) {
			case STANDALONE -> standalone(attributes);
			case SENTINEL -> sentinel(attributes);
			case CLUSTER -> cluster(attributes);
		};
	}

	private static RedisTopology standalone(Annotation annotation) {
		RedisStandaloneTest attributes = (RedisStandaloneTest) annotation;
		RedisServerConfig config = RedisServerConfig.defaults();
		if (!attributes.password().isEmpty()) {
			config = config.withPassword(attributes.password());
		}
		for (String user : attributes.aclUsers()) {
			int colon = user.indexOf(':');
			if (colon <= 0) {
				throw new IllegalArgumentException("ACL user '" + user + "' must be written username:password");
			}
			config = config.withAclUser(user.substring(0, colon), user.substring(colon + 1));
		}
		return RedisStandalone.start(config);
	}

	private static RedisTopology sentinel(Annotation annotation) {
		RedisSentinelTest attributes = (RedisSentinelTest) annotation;
		return RedisSentinelTopology.builder()
			.masterName(attributes.masterName())
			.downAfter(Duration.ofMillis(attributes.downAfterMillis()))
			.failoverTimeout(Duration.ofMillis(attributes.failoverTimeoutMillis()))
			.start();
	}

	private static RedisTopology cluster(Annotation annotation) {
		RedisClusterTest attributes = (RedisClusterTest) annotation;
		return RedisClusterTopology.builder()
			.masters(attributes.masters())
			.replicasPerMaster(attributes.replicasPerMaster())
			.nodeTimeout(Duration.ofMillis(attributes.nodeTimeoutMillis()))
			.start();
	}

}
