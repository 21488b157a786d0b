package io.github.dbleader.autoconfigure.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.context.PropertyMapping;

/**
 * Annotation for a Spring Boot test of an application that uses leader election: the
 * elections and cluster locks run on an in-memory repository instead of the database's
 * lease table, and the test puts this node in the role it wants with the
 * {@link LeaderElectionTestControl} bean it injects. No database server is needed for the
 * election, and no role changes unless the test says so.
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;AutoConfigureLeaderElectionTest
 * class ReportJobTests {
 *
 *     &#64;Autowired
 *     LeaderElectionTestControl leaderElection;
 *
 *     &#64;Test
 *     void runsOnTheLeader() {
 *         this.leaderElection.grant("reports", 7);
 *         ...
 *     }
 * }
 * </pre>
 *
 * Fenced work ({@code Election.runFenced}, {@code @ClusterLock} fenced runs) still runs
 * in a transaction of the application's own {@code DataSource}, which may be an embedded
 * one.
 *
 * <p>
 * It imports the election's auto-configuration ({@code ElectionService},
 * {@code @LeaderOnly} and {@code @ClusterLock} advice, partition groups, leader-scoped
 * services, which the test's grants start and its revocations stop), so it also works in
 * test slices and other tests without full auto-configuration, as long as they have a
 * {@code DataSource}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@PropertyMapping("leader-election")
public @interface AutoConfigureLeaderElectionTest {

	/**
	 * How often the election's heartbeat runs in the test, which bounds how long each
	 * call of {@link LeaderElectionTestControl} takes (about three rounds). Mapped to
	 * {@code leader-election.renew-interval}.
	 * @return the renew interval
	 */
	String renewInterval() default "20ms";

}
