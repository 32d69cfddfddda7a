package io.github.lettucetuning.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a field (static or not) of type
 * {@link io.github.lettucetuning.testsupport.topology.RedisStandalone},
 * {@link io.github.lettucetuning.testsupport.topology.RedisSentinelTopology} or
 * {@link io.github.lettucetuning.testsupport.topology.RedisClusterTopology} to receive
 * the topology started for the test class.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RedisServer {

}
