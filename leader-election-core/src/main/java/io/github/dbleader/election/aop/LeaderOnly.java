package io.github.dbleader.election.aop;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Run the annotated method (or every public method of the annotated class) only while
 * this node leads the named election; on any other node the call is skipped.
 *
 * <p>
 * The check happens at the moment of the call and reads no database: it compares the
 * monotonic clock with the end of this node's current belief in its leadership. A skipped
 * call returns {@code null} for reference types (including {@code void} and
 * {@code Object}), {@link java.util.Optional#empty()} for {@code Optional}, and the zero
 * value ({@code false}, {@code 0}, {@code '\0'}) for primitives.
 *
 * <p>
 * Like {@code @Transactional}, the annotation works through a Spring proxy: it applies to
 * calls from other beans (including the scheduler calling a {@code @Scheduled} method),
 * not to calls a bean makes on itself. The check runs before any {@code @Transactional}
 * advice of the same method, so a follower opens no transaction.
 *
 * <p>
 * The check says that this node led when the call started, not that it still leads when
 * the work ends. For side effects that must never happen twice, use
 * {@code Election.runFenced(...)} inside the method.
 *
 * <p>
 * Each call is recorded ({@link LeaderOnlyRuns}): the runs under way and the last calls
 * that ended, shown per election by the {@code leader} actuator endpoint. A run can be
 * bounded ({@link #maxRunTime()}) and interrupted when the leadership is lost
 * ({@link #interruptOnLoss()}).
 *
 * <p>
 * The annotation is {@link Reflective @Reflective}: an application processed ahead of
 * time may invoke an annotated method reflectively, as the starter's {@code jobs}
 * endpoint does to run it now.
 *
 * <p>
 * With the starter's auto-configuration, this node joins every election named here at
 * start-up. Without it, make sure the election is created (e.g.
 * {@code ElectionService.election(name)}) before the first call, which is otherwise
 * skipped while the node joins.
 */
@Target({ ElementType.TYPE, ElementType.METHOD })
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
@Reflective
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

	/**
	 * Longest a run of the method should take: a duration such as {@code 10m},
	 * {@code 30s} or {@code PT1H}, or a property placeholder that resolves to one. A run
	 * that takes longer goes on, but shows as past its bound in the election's health and
	 * in the gauge {@code leader.election.leader.only.overdue}, and is logged at WARN:
	 * the hung job whose node still looks a healthy leader. Empty (the default): the
	 * {@code leader-election.leader-only.max-run-time} property, no bound unless it is
	 * set. Without the starter's auto-configuration, only the ISO-8601 form
	 * ({@code PT10M}).
	 * @return the longest run, or empty
	 */
	String maxRunTime() default "";

	/**
	 * Whether to interrupt the run's thread when this node loses the leadership it
	 * started the run with (its lease ran out, an operator forced a re-election or a
	 * hand-over, the node released it), so that work which checks for interruption stops
	 * early instead of running on beside the new leader's. The loss is noticed within a
	 * renew interval. The interrupt is meant for the run: if the method returns without
	 * clearing it, the thread's interrupt flag is cleared when the run ends.
	 * @return whether to interrupt the run on loss
	 */
	boolean interruptOnLoss() default false;

}
