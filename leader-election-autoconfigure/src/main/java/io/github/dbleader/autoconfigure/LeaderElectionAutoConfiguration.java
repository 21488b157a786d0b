package io.github.dbleader.autoconfigure;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.github.dbleader.election.DatabasePreparation;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.MonotonicClock;
import io.github.dbleader.election.event.ApplicationEventLeadershipListener;
import io.github.dbleader.election.event.ObservationLeadershipListener;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.JdbcLockRepository;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.election.jdbc.JdbcPartitionPins;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.KeepAliveSettings;
import io.github.dbleader.election.lock.LockRepository;
import io.github.dbleader.election.lock.LockRunListener;
import io.github.dbleader.election.observation.FencedTransactionObservationConvention;
import io.github.dbleader.election.observation.LeadershipChangeObservationConvention;
import io.github.dbleader.election.observation.LockCallObservationConvention;
import io.github.dbleader.election.partition.PartitionPins;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for leader election on a {@code DataSource} of the application: the
 * lease schema, the {@link LeaseRepository}, the {@link ElectionService} to inject, and
 * the lifecycle that starts the service late and stops it (releasing leases) before the
 * {@code DataSource} closes.
 *
 * <p>
 * The election's {@code DataSource} is, in order: one of its own built from
 * {@code leader-election.jdbc.url}; the
 * {@link LeaderElectionDataSource @LeaderElectionDataSource} bean; the single or primary
 * {@code DataSource}. Without any of them it backs off, and {@code @LeaderOnly} methods
 * make start-up fail.
 *
 * <p>
 * Start-up does not wait for the database: the platform comes from the property or the
 * JDBC URL where they tell it (an unsupported one fails start-up), and the tables are
 * created when the election starts, before its first heartbeat. A database that does not
 * answer then leaves the election waiting for it (health and the leader endpoint say so,
 * {@code @LeaderOnly} methods are skipped), and it joins once the database answers.
 *
 * <p>
 * With an {@link ObservationRegistry} bean, fenced transactions, calls under cluster
 * locks and changes of leadership are observed in it, with the convention beans
 * ({@link FencedTransactionObservationConvention}, {@link LockCallObservationConvention},
 * {@link LeadershipChangeObservationConvention}) where there are.
 *
 * <p>
 * Where the application has Spring Boot's {@link ApplicationAvailability}, the node
 * campaigns only while its readiness accepts traffic
 * ({@code leader-election.follow-readiness}).
 */
@AutoConfiguration(after = { DataSourceAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
		DataSourceTransactionManagerAutoConfiguration.class, ApplicationAvailabilityAutoConfiguration.class })
@ConditionalOnClass({ DataSource.class, JdbcTemplate.class, DataSourceScriptDatabaseInitializer.class })
@Conditional(LeaderElectionAutoConfiguration.ElectionDataSourceCondition.class)
@ConditionalOnBooleanProperty(name = "leader-election.enabled", matchIfMissing = true)
@EnableConfigurationProperties(LeaderElectionProperties.class)
@Import(DatabaseInitializationDependencyConfigurer.class)
public final class LeaderElectionAutoConfiguration {

	@Bean
	ElectionDataSource leaderElectionDataSource(LeaderElectionProperties properties,
			@LeaderElectionDataSource ObjectProvider<DataSource> leaderElectionDataSource,
			ObjectProvider<DataSource> dataSource) {
		return ElectionDataSource.determine(properties.getJdbc(), leaderElectionDataSource, dataSource);
	}

	@Bean
	ElectionConnectionPool leaderElectionConnectionPool(ElectionDataSource electionDataSource,
			LeaderElectionProperties properties) {
		LeaderElectionProperties.Jdbc jdbc = properties.getJdbc();
		ElectionSettings settings = properties.determineElectionSettings();
		return ElectionConnectionPool.create(electionDataSource.getDataSource(), jdbc.isDedicatedPool(),
				jdbc.determineDedicatedPoolSize(), settings.statementTimeout());
	}

	@Bean
	DialectDetector leaderElectionDialectDetector(ElectionDataSource electionDataSource,
			LeaderElectionProperties properties) {
		return new DialectDetector(electionDataSource.getDataSource(), properties.getJdbc(),
				properties.determineElectionSettings().renewInterval(), MonotonicClock.SYSTEM);
	}

	@Bean
	@ConditionalOnMissingBean
	LeaseRepository leaderElectionLeaseRepository(ElectionDataSource electionDataSource,
			ElectionConnectionPool connectionPool, ObjectProvider<PlatformTransactionManager> transactionManagers,
			ListableBeanFactory beanFactory, DialectDetector dialectDetector, LeaderElectionProperties properties) {
		return new JdbcLeaseRepository(store(electionDataSource, connectionPool, transactionManagers, beanFactory,
				dialectDetector, properties));
	}

	@Bean
	@ConditionalOnMissingBean
	LockRepository leaderElectionLockRepository(ElectionDataSource electionDataSource,
			ElectionConnectionPool connectionPool, ObjectProvider<PlatformTransactionManager> transactionManagers,
			ListableBeanFactory beanFactory, DialectDetector dialectDetector, LeaderElectionProperties properties) {
		// Locks live in the lease table, on the election's pool; their fenced work joins
		// the application's transactions, as the elections' does.
		return new JdbcLockRepository(store(electionDataSource, connectionPool, transactionManagers, beanFactory,
				dialectDetector, properties));
	}

	@Bean
	@ConditionalOnMissingBean
	PartitionPins leaderElectionPartitionPins(ElectionConnectionPool connectionPool, DialectDetector dialectDetector,
			LeaderElectionProperties properties) {
		// The pins' statements need no platform, and no fenced work runs on their store.
		return new JdbcPartitionPins(new JdbcStore(connectionPool.getDataSource(), dialectDetector::getDialect,
				properties.getJdbc().determineLeaseTables(),
				properties.determineElectionSettings().statementTimeout()));
	}

	/**
	 * The store of a repository of leases or locks: the election's pool for its
	 * statements, the application's transactions for fenced work.
	 */
	private static JdbcStore store(ElectionDataSource electionDataSource, ElectionConnectionPool connectionPool,
			ObjectProvider<PlatformTransactionManager> transactionManagers, ListableBeanFactory beanFactory,
			DialectDetector dialectDetector, LeaderElectionProperties properties) {
		// Fenced work joins the application's transactions, so it runs on the election's
		// DataSource itself and a transaction manager of it, not on the election's pool.
		PlatformTransactionManager fencedTransactions = FencedTransactions
			.determineTransactionManager(electionDataSource, transactionManagers, beanFactory);
		// Built at once: the store asks the detector for the platform when a statement
		// first needs it, and again after a failure, so the context starts while the
		// database is away. A database that answers now but is not supported still stops
		// the start-up.
		dialectDetector.getDialectIfAnswering();
		return new JdbcStore(connectionPool.getDataSource(), fencedTransactions, electionDataSource.getDataSource(),
				dialectDetector::getDialect, properties.getJdbc().determineLeaseTables(),
				properties.determineElectionSettings().statementTimeout());
	}

	@Bean
	@ConditionalOnMissingBean
	ElectionService electionService(LeaseRepository leaseRepository, LeaderElectionProperties properties,
			Environment environment, ApplicationEventPublisher eventPublisher,
			ObjectProvider<LeadershipListener> listeners, DialectDetector dialectDetector,
			ObjectProvider<LeaderElectionDataSourceScriptDatabaseInitializer> schemaInitializers,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<FencedTransactionObservationConvention> fencedTransactionObservationConvention,
			ObjectProvider<LeadershipChangeObservationConvention> leadershipChangeObservationConvention) {
		List<LeadershipListener> all = new ArrayList<>();
		all.add(new ApplicationEventLeadershipListener(eventPublisher));
		listeners.orderedStream().forEach(all::add);
		ObservationRegistry registry = observationRegistry.getIfUnique();
		if (registry != null) {
			all.add(new ObservationLeadershipListener(registry, leadershipChangeObservationConvention.getIfUnique()));
		}
		// Nothing of the database is needed before the election starts: the platform
		// (unless known from a property or the URL) and the tables come when the database
		// answers.
		DatabasePreparation preparation = () -> {
			dialectDetector.getDialect();
			schemaInitializers.orderedStream()
				.forEach(LeaderElectionDataSourceScriptDatabaseInitializer::initializeDatabase);
		};
		ElectionService service = new ElectionService(leaseRepository, properties.determineElectionSettings(),
				properties.determineNodeId(DefaultNodeId.of(environment)), new CompositeLeadershipListener(all),
				MonotonicClock.SYSTEM, preparation);
		service.setRank(properties.determineRank(environment.getProperty("spring.application.version")));
		if (registry != null) {
			service.setObservationRegistry(registry);
			service.setFencedTransactionObservationConvention(fencedTransactionObservationConvention.getIfUnique());
		}
		// Creating an election starts no thread and sends no statement before start().
		properties.determineElections().forEach(service::election);
		return service;
	}

	@Bean
	@ConditionalOnMissingBean
	@Lazy
	ClusterLocks clusterLocks(LockRepository lockRepository, ElectionService electionService,
			LeaderElectionProperties properties, ObjectProvider<LockRunListener> listeners,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<LockCallObservationConvention> lockCallObservationConvention,
			ObjectProvider<FencedTransactionObservationConvention> fencedTransactionObservationConvention) {
		// Kept-alive locks are renewed as the elections are: by a lease, every renew
		// interval.
		ClusterLocks locks = new ClusterLocks(lockRepository, electionService.nodeId(), MonotonicClock.SYSTEM,
				Clock.systemUTC(), new CompositeLockRunListener(listeners.orderedStream().toList()),
				KeepAliveSettings.of(electionService.settings()));
		locks.setRunSpread(properties.getLocks().determineSpread());
		observationRegistry.ifUnique((registry) -> {
			locks.setObservationRegistry(registry);
			locks.setObservationConvention(lockCallObservationConvention.getIfUnique());
			locks.setFencedTransactionObservationConvention(fencedTransactionObservationConvention.getIfUnique());
		});
		return locks;
	}

	@Bean
	LeaderElectionLifecycle leaderElectionLifecycle(ElectionService electionService,
			LeaderElectionProperties properties) {
		return new LeaderElectionLifecycle(electionService, properties.isReleaseOnShutdown());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnBean(ApplicationAvailability.class)
	@ConditionalOnBooleanProperty(name = "leader-election.follow-readiness", matchIfMissing = true)
	static class ReadinessConfiguration {

		@Bean
		ReadinessCampaign leaderElectionReadinessCampaign(ElectionService electionService,
				ApplicationAvailability applicationAvailability) {
			return new ReadinessCampaign(electionService, applicationAvailability);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Conditional(OnLeaderElectionDataSourceInitializationCondition.class)
	static class SchemaInitializationConfiguration {

		@Bean
		@ConditionalOnMissingBean
		LeaderElectionDataSourceScriptDatabaseInitializer leaderElectionDataSourceScriptDatabaseInitializer(
				ElectionDataSource electionDataSource, DialectDetector dialectDetector,
				LeaderElectionProperties properties) {
			LeaderElectionProperties.Jdbc jdbc = properties.getJdbc();
			return new LeaderElectionDataSourceScriptDatabaseInitializer(electionDataSource.getDataSource(),
					jdbc.getInitializeSchema(), dialectDetector::getDialect, jdbc.determineLeaseTables());
		}

	}

	/**
	 * Matches when a {@code DataSource} can be chosen for the election, as Spring Boot's
	 * Flyway auto-configuration does for its own.
	 */
	static final class ElectionDataSourceCondition extends AnyNestedCondition {

		ElectionDataSourceCondition() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnProperty(name = "leader-election.jdbc.url")
		static final class UrlCondition {

		}

		@ConditionalOnBean(annotation = LeaderElectionDataSource.class)
		static final class QualifiedDataSourceCondition {

		}

		@ConditionalOnSingleCandidate(DataSource.class)
		static final class SingleDataSourceCondition {

		}

	}

}
