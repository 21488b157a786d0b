package io.github.dbleader.shedlock.autoconfigure;

import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.shedlock.ClusterLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of a ShedLock {@link LockProvider} over the starter's
 * {@link ClusterLocks}, unless the application defines a {@code LockProvider} of its own:
 * {@code @EnableSchedulerLock} and {@code @SchedulerLock} stay as they are, and their runs
 * take the cluster locks. The same class serves Spring Boot 3.5 and 4, with either
 * line's starter.
 */
// By name: this module serves both Spring Boot lines, whose auto-configuration jars each have
// a class of that name, and depends on neither.
@AutoConfiguration(afterName = "io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration")
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(ClusterLocks.class)
public final class ClusterLockProviderAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	ClusterLockProvider clusterLockProvider(ClusterLocks clusterLocks) {
		return new ClusterLockProvider(clusterLocks);
	}

}
