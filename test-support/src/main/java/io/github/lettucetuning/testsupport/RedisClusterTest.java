package io.github.lettucetuning.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.lettucetuning.testsupport.topology.RedisClusterTopology;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a Redis Cluster (three masters with one replica each by default) for the annotated
 * test class. Tests receive it as a {@link RedisClusterTopology} parameter or a field
 * annotated with {@link RedisServer}.
 * <p>
 * The cluster is shared by every test of the class: killed nodes should be restarted,
 * paused nodes resumed and data flushed by the test that changed them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisServersExtension.class)
public @interface RedisClusterTest {

	int masters() default 3;

	int replicasPerMaster() default 1;

	/**
	 * {@code cluster-node-timeout}.
	 * @return the timeout in milliseconds
	 */
	long nodeTimeoutMillis() default 2000;

}
