package io.github.dbleader.autoconfigure;

import org.springframework.boot.sql.autoconfigure.init.OnDatabaseInitializationCondition;

/**
 * Matches unless {@code leader-election.jdbc.initialize-schema} is {@code never}.
 */
class OnLeaderElectionDataSourceInitializationCondition extends OnDatabaseInitializationCondition {

	OnLeaderElectionDataSourceInitializationCondition() {
		super("Leader Election", "leader-election.jdbc.initialize-schema");
	}

}
