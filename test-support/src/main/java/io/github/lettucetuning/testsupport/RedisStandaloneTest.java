package io.github.lettucetuning.testsupport;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs one {@code redis-server} for the annotated test class. Tests receive it as a
 * {@link io.github.lettucetuning.testsupport.topology.RedisStandalone} parameter
 * (constructor, lifecycle or test method) or a field annotated with {@link RedisServer}.
 * <p>
 * The server is shared by every test of the class: flushing data ({@code FLUSHALL}) and
 * resuming paused nodes between tests is the test's job.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisServersExtension.class)
public @interface RedisStandaloneTest {

	/**
	 * Password required from clients ({@code requirepass}); empty for none.
	 * @return the password
	 */
	String password() default "";

	/**
	 * ACL users with full access, each written {@code username:password}.
	 * @return the users
	 */
	String[] aclUsers() default {};

}
