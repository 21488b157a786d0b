package io.github.dbleader.autoconfigure.test;

import java.time.Clock;

import javax.sql.DataSource;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.election.ElectionService;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link org.springframework.boot.autoconfigure.ImportAutoConfiguration Imported} by
 * {@link AutoConfigureLeaderElectionTest @AutoConfigureLeaderElectionTest}: replaces the
 * lease and lock repository and the partition pins of
 * {@link LeaderElectionAutoConfiguration} with ones in memory that the
 * {@link LeaderElectionTestControl} bean drives. Everything else (the
 * {@link ElectionService}, {@code @LeaderOnly}, {@code @ClusterLock}, events, endpoints)
 * is the production auto-configuration's.
 */
@AutoConfiguration(before = LeaderElectionAutoConfiguration.class,
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration")
public final class LeaderElectionTestAutoConfiguration {

	@Bean
	TestControlledLeaseRepository leaderElectionTestLeaseRepository(
			ObjectProvider<PlatformTransactionManager> transactionManagers, ObjectProvider<DataSource> dataSources) {
		FencedTransactionManager fencedTransactions = new FencedTransactionManager(transactionManagers, dataSources);
		return new TestControlledLeaseRepository(Clock.systemUTC(), fencedTransactions::get);
	}

	@Bean
	InMemoryPartitionPins leaderElectionTestPartitionPins() {
		return new InMemoryPartitionPins();
	}

	@Bean
	HeartbeatRounds leaderElectionTestHeartbeatRounds() {
		return new HeartbeatRounds();
	}

	@Bean
	static RecordedLeadershipEvents leaderElectionTestRecordedEvents() {
		return new RecordedLeadershipEvents();
	}

	@Bean
	LeaderElectionTestControl leaderElectionTestControl(ObjectProvider<ElectionService> electionService,
			TestControlledLeaseRepository leaseRepository, HeartbeatRounds heartbeatRounds,
			RecordedLeadershipEvents recordedEvents) {
		return new LeaderElectionTestControl(electionService, leaseRepository, heartbeatRounds, recordedEvents);
	}

	/**
	 * The transaction manager fenced work runs in, chosen on first use: the application's
	 * only one, else one of its only {@code DataSource}, else none.
	 */
	private static final class FencedTransactionManager {

		private final ObjectProvider<PlatformTransactionManager> transactionManagers;

		private final ObjectProvider<DataSource> dataSources;

		private volatile PlatformTransactionManager chosen;

		FencedTransactionManager(ObjectProvider<PlatformTransactionManager> transactionManagers,
				ObjectProvider<DataSource> dataSources) {
			this.transactionManagers = transactionManagers;
			this.dataSources = dataSources;
		}

		PlatformTransactionManager get() {
			PlatformTransactionManager transactionManager = this.chosen;
			if (transactionManager == null) {
				transactionManager = this.transactionManagers.getIfUnique(() -> {
					DataSource dataSource = this.dataSources.getIfUnique();
					return (dataSource != null) ? new DataSourceTransactionManager(dataSource) : null;
				});
				this.chosen = transactionManager;
			}
			return transactionManager;
		}

	}

}
