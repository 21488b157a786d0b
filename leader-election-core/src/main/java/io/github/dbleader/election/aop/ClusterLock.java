package io.github.dbleader.election.aop;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Run each call of the annotated method under a cluster lock
 * ({@link io.github.dbleader.election.lock.ClusterLocks}): the node that takes the lock
 * runs the call, any other node skips it without an exception. Unlike
 * {@link LeaderOnly @LeaderOnly}, there is no standing leader: whichever node is free
 * takes each run, and the check costs one statement per call.
 *
 * <p>
 * With {@link #permits()} above 1, up to that many calls run at once across the cluster
 * (for example at most three runs of a job at once), each under a permit of its own.
 *
 * <p>
 * A skipped call returns what a skipped {@code @LeaderOnly} call returns ({@code null},
 * {@link java.util.Optional#empty()} or a primitive zero). Inside the method,
 * {@code ClusterLocks.currentLock()} gives the held lock, for fenced work.
 *
 * <p>
 * The lock expires on the database clock: a forward step of that clock (or a failover to
 * a database server whose clock is ahead) can free it while the call still runs, and a
 * call on another node may then run too. Only the call's fenced work
 * ({@code HeldLock.runFenced}) is then refused; its other work can overlap. With
 * {@link #maxFor()} the call learns of the loss within a renew interval. Elections
 * ({@link LeaderOnly @LeaderOnly}) are not affected by such a step.
 *
 * <p>
 * Like {@code @Transactional}, the annotation works through a Spring proxy: it applies to
 * calls from other beans (including the scheduler calling a {@code @Scheduled} method),
 * not to calls a bean makes on itself.
 *
 * <p>
 * The annotation is {@link Reflective @Reflective}: an application processed ahead of
 * time may invoke an annotated method reflectively, as the starter's {@code jobs}
 * endpoint does to run it now.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface ClusterLock {

	/**
	 * Name of the lock; by default the simple name of the bean's class, a dot and the
	 * method's name.
	 * @return the lock name
	 */
	String name() default "";

	/**
	 * How long the lock is held at most, also when this node crashes: a duration such as
	 * {@code 30s}, {@code 500ms} or {@code PT1M}, or a property placeholder that resolves
	 * to one. A run that takes longer extends its lock while it runs
	 * ({@code ClusterLocks.currentLock()}, then {@code HeldLock.extend(Duration)});
	 * without an extension another node may take the lock once this has passed.
	 * @return the longest hold
	 */
	String atMostFor() default "30s";

	/**
	 * How long after its acquisition the lock stays taken even when the run has ended (in
	 * {@link Mode#RELEASE_AFTER_RUN} mode), so that a node whose scheduler fires a little
	 * later does not run the task again; at most {@link #atMostFor()}. With it, each node
	 * also waits a random pause before its try (up to a quarter of it, and at most
	 * {@code ClusterLocks.setRunSpread}, {@code leader-election.locks.spread} with Spring
	 * Boot), so that the runs go to random nodes, not to the node whose scheduler fires
	 * first.
	 * @return the shortest hold
	 */
	String atLeastFor() default "0s";

	/**
	 * How many calls may run at once across the cluster, each under a permit of its own
	 * ({@code ClusterLocks.tryPermit}): 1 (the default) for one at a time, under the lock
	 * itself. With more, each call holds one of the lock's permits, a lock of its own
	 * named {@code <name>::permit-<n>} from the second on, with its own term for fenced
	 * work, its own extensions and keep-alive; {@code ClusterLocks.currentLock()} gives
	 * it. A try costs one statement more than a lock's (a read of which permits are
	 * free), whatever the count. Methods that share a lock name should give the same
	 * count: at most the largest count run at once. The name of the last permit must fit
	 * in the lock names' length limit.
	 * @return the number of permits, 1 to 1000
	 */
	int permits() default 1;

	/**
	 * What happens to the lock when the run ends.
	 * @return the mode
	 */
	Mode mode() default Mode.RELEASE_AFTER_RUN;

	/**
	 * Keep the lock alive while the run runs, up to this long after its acquisition: a
	 * duration or a property placeholder, as for {@link #atMostFor()}. Empty (the
	 * default): the lock is not kept alive, and expires after {@code atMostFor} unless
	 * the run extends it. Set: this node renews the lock every renew interval by a lease,
	 * with all its other kept-alive locks in one statement, so a run may last longer than
	 * {@code atMostFor}, and a crash of this node frees the lock about a lease (the
	 * election's {@code lease-duration}) after its last renewal. The run learns of a loss
	 * at once: {@code HeldLock.isHeld()} turns {@code false}, its fenced work is refused,
	 * and with {@link #interruptOnLoss()} its thread is interrupted.
	 * @return the longest hold of a kept-alive lock, or empty
	 */
	String maxFor() default "";

	/**
	 * Whether to interrupt the run's thread when its kept-alive lock is lost (renewals
	 * stopped reaching the database, {@code maxFor} passed, or an operator released it),
	 * so that work which checks for interruption stops early. Only with
	 * {@link #maxFor()}.
	 * @return whether to interrupt the run on loss
	 */
	boolean interruptOnLoss() default false;

	/**
	 * What happens to the lock when the run ends.
	 */
	enum Mode {

		/**
		 * Release the lock (it stays taken until {@code atLeastFor} after its
		 * acquisition): the next run can go to any node.
		 */
		RELEASE_AFTER_RUN,

		/**
		 * Keep the lock until {@code atMostFor} expires: one statement less per run, for
		 * short tasks that run less often than {@code atMostFor}.
		 */
		KEEP_UNTIL_EXPIRY

	}

}
