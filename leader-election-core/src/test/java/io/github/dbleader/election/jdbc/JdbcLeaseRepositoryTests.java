package io.github.dbleader.election.jdbc;

import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;

import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessResourceException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which failures of a causal read make {@link JdbcLeaseRepository#findAll} read the
 * node's own data instead: a read that waited too long, not a server out of reach or a
 * broken statement.
 */
class JdbcLeaseRepositoryTests {

	@Test
	void socketTimeoutUnderTheDriversAndSpringsWrappersWaitedTooLong() {
		SQLException communications = new SQLException("Communications link failure", "08S01",
				new SocketTimeoutException("Read timed out"));
		assertThat(ViewReads.waitedTooLong(new RecoverableDataAccessException("findAll", communications))).isTrue();
	}

	@Test
	void queryTimeoutWaitedTooLong() {
		assertThat(ViewReads
			.waitedTooLong(new QueryTimeoutException("findAll", new SQLTimeoutException("Statement cancelled"))))
			.isTrue();
	}

	@Test
	void serverLimitsOfTheWaitWaitedTooLong() {
		for (int code : new int[] { 1205, 1317, 1969 }) {
			assertThat(ViewReads.waitedTooLong(
					new TransientDataAccessResourceException("findAll", new SQLException("waited", "HY000", code))))
				.as("error %d", code)
				.isTrue();
		}
	}

	@Test
	void serverOutOfReachOrFailingStatementDidNotWait() {
		SQLException refused = new SQLException("Communications link failure", "08S01",
				new ConnectException("Connection refused"));
		assertThat(ViewReads.waitedTooLong(new RecoverableDataAccessException("findAll", refused))).isFalse();
		// 1047: a node outside the primary component refuses reads of its own data too.
		assertThat(ViewReads.waitedTooLong(new SQLException("WSREP has not yet prepared node", "08S01", 1047)))
			.isFalse();
		assertThat(ViewReads.waitedTooLong(new SQLException("Table doesn't exist", "42S02", 1146))).isFalse();
	}

}
