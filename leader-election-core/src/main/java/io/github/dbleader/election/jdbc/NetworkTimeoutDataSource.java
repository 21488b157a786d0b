package io.github.dbleader.election.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Sets a network timeout on every connection handed to the election, so that a hung
 * database cannot stall the heartbeat beyond the statement timeout (Connector/J's socket
 * timeout is infinite by default). Pools such as HikariCP reset it on return.
 */
final class NetworkTimeoutDataSource extends DelegatingDataSource {

	private final int timeoutMillis;

	NetworkTimeoutDataSource(DataSource target, Duration timeout) {
		super(target);
		this.timeoutMillis = (int) Math.max(1, timeout.toMillis());
	}

	/**
	 * Statements on a data source with the statement timeout as both their query timeout
	 * (in whole seconds, rounded up) and their connections' network timeout.
	 * @param dataSource the data source
	 * @param statementTimeout the statement timeout
	 * @return the statements
	 */
	static JdbcTemplate jdbcTemplate(DataSource dataSource, Duration statementTimeout) {
		JdbcTemplate jdbc = new JdbcTemplate(new NetworkTimeoutDataSource(dataSource, statementTimeout));
		jdbc.setQueryTimeout((int) Math.max(1, (statementTimeout.toMillis() + 999) / 1000));
		return jdbc;
	}

	@Override
	public Connection getConnection() throws SQLException {
		return withTimeout(super.getConnection());
	}

	@Override
	public Connection getConnection(String username, String password) throws SQLException {
		return withTimeout(super.getConnection(username, password));
	}

	private Connection withTimeout(Connection connection) throws SQLException {
		try {
			connection.setNetworkTimeout(Runnable::run, this.timeoutMillis);
		}
		catch (SQLFeatureNotSupportedException | AbstractMethodError ex) {
			// The driver cannot limit the socket; the query timeout still applies.
		}
		return connection;
	}

}
