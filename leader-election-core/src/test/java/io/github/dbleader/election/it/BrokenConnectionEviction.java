package io.github.dbleader.election.it;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;

import com.zaxxer.hikari.SQLExceptionOverride;

/**
 * Makes HikariCP drop a connection that failed with an exception whose JDBC type says the
 * connection is dead. HikariCP goes by SQL state alone ({@code 08...} and a few more),
 * and hands a connection used less than 500 ms ago out again without checking it. H2
 * reports a connection broken by the network with state {@code 90067}; with the tests'
 * renew interval of 400 ms, a node would then get the same dead connection back on every
 * heartbeat and never recover, whatever the election does.
 */
public final class BrokenConnectionEviction implements SQLExceptionOverride {

	@java.lang.Override
	public SQLExceptionOverride.Override adjudicate(SQLException ex) {
		if (ex instanceof SQLNonTransientConnectionException || ex instanceof SQLRecoverableException) {
			return SQLExceptionOverride.Override.MUST_EVICT;
		}
		return SQLExceptionOverride.Override.CONTINUE_EVICT;
	}

}
