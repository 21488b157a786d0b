package io.github.dbleader.autoconfigure;

import java.util.Set;

import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.lock.LockRepository;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDependsOnDatabaseInitializationDetector;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitializationDetector;

/**
 * {@link DependsOnDatabaseInitializationDetector} that makes the lease and lock
 * repositories and the election service wait for every database initializer (Flyway,
 * Liquibase, SQL scripts and the lease schema), so the election never runs against tables
 * that do not exist yet.
 */
class LeaderElectionDependsOnDatabaseInitializationDetector
		extends AbstractBeansOfTypeDependsOnDatabaseInitializationDetector {

	@Override
	protected Set<Class<?>> getDependsOnDatabaseInitializationBeanTypes() {
		return Set.of(LeaseRepository.class, LockRepository.class, ElectionService.class);
	}

}
