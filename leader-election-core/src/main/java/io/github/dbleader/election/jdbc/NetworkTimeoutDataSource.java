package io.github.dbleader.election.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionProxy;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * Sets a network timeout on every connection handed to the election, so that a hung
 * database cannot stall the heartbeat beyond the statement timeout (Connector/J's socket
 * timeout is infinite by default), and restores the connection's own when the election
 * closes it: pools other than HikariCP (DBCP2, Tomcat JDBC, c3p0, Agroal) hand the
 * connection to the application next with whatever network timeout it has, and the
 * application's queries longer than the election's statement timeout would fail.
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
		int previous;
		try {
			previous = connection.getNetworkTimeout();
			if (previous == this.timeoutMillis) {
				return connection;
			}
			connection.setNetworkTimeout(Runnable::run, this.timeoutMillis);
		}
		catch (SQLFeatureNotSupportedException | AbstractMethodError ex) {
			// The driver cannot limit the socket; the query timeout still applies.
			return connection;
		}
		catch (SQLException | RuntimeException ex) {
			// Usually broken: back to the pool, which finds out.
			closeAfterFailure(connection, ex);
			throw ex;
		}
		return (Connection) Proxy.newProxyInstance(NetworkTimeoutDataSource.class.getClassLoader(),
				new Class<?>[] { ConnectionProxy.class }, new RestoringClose(connection, previous));
	}

	private static void closeAfterFailure(Connection connection, Throwable failure) {
		try {
			connection.close();
		}
		catch (SQLException | RuntimeException closeFailure) {
			failure.addSuppressed(closeFailure);
		}
	}

	/**
	 * The connection with the election's network timeout: its {@code close()} first sets
	 * the network timeout back to the one it had.
	 */
	private static final class RestoringClose implements InvocationHandler {

		private final Connection target;

		private final int previousTimeout;

		private boolean closed;

		RestoringClose(Connection target, int previousTimeout) {
			this.target = target;
			this.previousTimeout = previousTimeout;
		}

		@Override
		public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
			switch (method.getName()) {
				case "close":
					close();
					return null;
				case "getTargetConnection":
					return this.target;
				case "unwrap":
					return ((Class<?>) args[0]).isInstance(proxy) ? proxy : this.target.unwrap((Class<?>) args[0]);
				case "isWrapperFor":
					return ((Class<?>) args[0]).isInstance(proxy) || this.target.isWrapperFor((Class<?>) args[0]);
				case "equals":
					return proxy == args[0];
				case "hashCode":
					return System.identityHashCode(proxy);
				case "toString":
					return "Election connection on " + this.target;
				default:
					break;
			}
			try {
				return method.invoke(this.target, args);
			}
			catch (InvocationTargetException ex) {
				throw ex.getTargetException();
			}
		}

		private void close() throws SQLException {
			if (this.closed) {
				return;
			}
			this.closed = true;
			try {
				this.target.setNetworkTimeout(Runnable::run, this.previousTimeout);
			}
			catch (SQLException | RuntimeException ex) {
				// Usually broken already. Otherwise it keeps the election's timeout: keep
				// it from the next borrower rather than let the application inherit it.
				try {
					this.target.abort(Runnable::run);
				}
				catch (SQLException | RuntimeException abortFailure) {
					// closed anyway
				}
			}
			this.target.close();
		}

	}

}
