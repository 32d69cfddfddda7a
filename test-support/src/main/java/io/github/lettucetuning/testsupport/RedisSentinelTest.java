package io.github.lettucetuning.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.lettucetuning.testsupport.topology.RedisSentinelTopology;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a master, a replica and three Sentinels for the annotated test class. Tests
 * receive it as a {@link RedisSentinelTopology} parameter or a field annotated with
 * {@link RedisServer}.
 * <p>
 * The topology is shared by every test of the class: after a failover the roles stay
 * swapped, so tests should ask {@link RedisSentinelTopology#master()} rather than assume.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisServersExtension.class)
public @interface RedisSentinelTest {

	String masterName() default RedisSentinelTopology.DEFAULT_MASTER_NAME;

	/**
	 * Sentinel {@code down-after-milliseconds}.
	 * @return the delay in milliseconds
	 */
	long downAfterMillis() default 1000;

	/**
	 * Sentinel {@code failover-timeout}.
	 * @return the timeout in milliseconds
	 */
	long failoverTimeoutMillis() default 5000;

}
