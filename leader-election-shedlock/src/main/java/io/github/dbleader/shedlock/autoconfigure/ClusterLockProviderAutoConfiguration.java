package io.github.dbleader.shedlock.autoconfigure;

import java.time.Duration;

import javax.sql.DataSource;

import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.shedlock.ClusterLockProvider;
import io.github.dbleader.shedlock.ShedLockBridge;
import net.javacrumbs.shedlock.core.LockProvider;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of a ShedLock {@link LockProvider} over the starter's
 * {@link ClusterLocks}, unless the application defines a {@code LockProvider} of its own:
 * {@code @EnableSchedulerLock} and {@code @SchedulerLock} stay as they are, and their
 * runs take the cluster locks. The same class serves Spring Boot 3.5 and 4, with either
 * line's starter.
 *
 * <p>
 * With {@code leader-election.shedlock.bridge.table-name} set, the provider also takes
 * ShedLock's own rows in that table ({@link ShedLockBridge}), on the application's single
 * or primary {@code DataSource}, for a rolling migration from ShedLock's
 * {@code JdbcTemplateLockProvider}.
 */
// By name: this module serves both Spring Boot lines, whose auto-configuration jars each
// have a class of that name, and depends on neither.
@AutoConfiguration(afterName = "io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration")
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBean(ClusterLocks.class)
@EnableConfigurationProperties(ShedLockBridgeProperties.class)
public final class ClusterLockProviderAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(LockProvider.class)
	ClusterLockProvider clusterLockProvider(ClusterLocks clusterLocks, ObjectProvider<ShedLockBridge> bridge) {
		ShedLockBridge shedLockBridge = bridge.getIfAvailable();
		return (shedLockBridge != null) ? new ClusterLockProvider(clusterLocks, shedLockBridge)
				: new ClusterLockProvider(clusterLocks);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(prefix = "leader-election.shedlock.bridge", name = "table-name")
	static class ShedLockBridgeConfiguration {

		/**
		 * The bridge, its table checked: a missing table or column stops the start-up,
		 * since a bridge that cannot take ShedLock's rows would skip every run.
		 */
		@Bean
		@ConditionalOnMissingBean
		ShedLockBridge shedLockBridge(ShedLockBridgeProperties properties, ClusterLocks clusterLocks,
				ObjectProvider<DataSource> dataSource, ObjectProvider<ElectionService> electionService) {
			DataSource applicationDataSource = dataSource.getIfUnique();
			if (applicationDataSource == null) {
				throw new IllegalStateException("leader-election.shedlock.bridge.table-name is set, but the application"
						+ " has no single or primary DataSource to find ShedLock's table on; define a ShedLockBridge"
						+ " bean on the DataSource of the old nodes' JdbcTemplateLockProvider");
			}
			ElectionService elections = electionService.getIfAvailable();
			Duration statementTimeout = ((elections != null) ? elections.settings() : ElectionSettings.defaults())
				.statementTimeout();
			ShedLockBridge bridge = new ShedLockBridge(applicationDataSource, properties.determineTable(),
					clusterLocks.getNodeId(), statementTimeout);
			bridge.checkTable();
			return bridge;
		}

	}

}
