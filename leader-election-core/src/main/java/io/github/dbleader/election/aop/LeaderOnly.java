package io.github.dbleader.election.aop;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.core.annotation.AliasFor;

/**
 * Run the annotated method (or every public method of the annotated class) only while this
 * node leads the named election; on any other node the call is skipped.
 *
 * <p>The check happens at the moment of the call and reads no database: it compares the
 * monotonic clock with the end of this node's current belief in its leadership. A skipped
 * call returns {@code null} for reference types (including {@code void} and
 * {@code Object}), {@link java.util.Optional#empty()} for {@code Optional}, and the zero
 * value ({@code false}, {@code 0}, {@code '\0'}) for primitives.
 *
 * <p>Like {@code @Transactional}, the annotation works through a Spring proxy: it applies
 * to calls from other beans (including the scheduler calling a {@code @Scheduled} method),
 * not to calls a bean makes on itself. The check runs before any {@code @Transactional}
 * advice of the same method, so a follower opens no transaction.
 *
 * <p>The check says that this node led when the call started, not that it still leads
 * when the work ends. For side effects that must never happen twice, use
 * {@code Election.runFenced(...)} inside the method.
 *
 * <p>With the starter's auto-configuration, this node joins every election named here at
 * start-up. Without it, make sure the election is created (e.g.
 * {@code ElectionService.election(name)}) before the first call, which is otherwise
 * skipped while the node joins.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface LeaderOnly {

	/**
	 * Alias for {@link #election()}.
	 * @return the election name
	 */
	@AliasFor("election")
	String value() default "default";

	/**
	 * Name of the election whose leader runs the method.
	 * @return the election name
	 */
	@AliasFor("value")
	String election() default "default";

}
