package io.github.dbleader.election.it;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.function.UnaryOperator;

import javax.sql.DataSource;

import io.github.dbleader.election.jdbc.SqlDialect;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A database clock that a test steps, as NTP or an operator steps a server's clock: the
 * connections handed out by {@link #dataSource} see the database clock moved by an offset
 * that {@link #step} changes. Where the server lets a session move its clock, every
 * statement sees the moved clock, whatever its text:
 * <ul>
 * <li>MySQL and MariaDB: {@code SET SESSION timestamp}, from the server's own clock
 * ({@code SYSDATE}), on every connection handed out. The session's clock then stands
 * still while the connection is out, for a statement or a transaction.
 * <li>PostgreSQL: a function {@code clock_timestamp()} in a schema of its own, which
 * every connection handed out names before {@code pg_catalog} in its {@code search_path},
 * adds the offset that the connection is handed out with (a setting of its session).
 * <li>H2, whose {@code CURRENT_TIMESTAMP} no setting moves: the statements' text, in
 * which the dialect's clock expression gets the offset added.
 * </ul>
 * A connection goes back to its pool on the database's own clock, and other connections,
 * the server's clock and this JVM's are left alone. Close the clock (PostgreSQL: it drops
 * its schema) after the pools whose connections it moved.
 */
public final class SteppedDatabaseClock implements AutoCloseable {

	/** PostgreSQL: the session setting that holds the offset in milliseconds. */
	private static final String OFFSET_SETTING = "it_clock.offset_ms";

	/** H2: the methods of a connection or a statement whose first argument is SQL. */
	private static final Set<String> TAKING_SQL = Set.of("prepareStatement", "prepareCall", "nativeSQL", "execute",
			"executeQuery", "executeUpdate", "executeLargeUpdate", "addBatch");

	private final SqlDialect dialect;

	private final JdbcTemplate admin;

	/** PostgreSQL: the schema of the moved clock; {@code null} elsewhere. */
	private final @Nullable String schema;

	/** PostgreSQL: the search path of the connections before they are handed out. */
	private final @Nullable String searchPath;

	private volatile long offsetMillis;

	private SteppedDatabaseClock(SqlDialect dialect, DataSource admin) {
		this.dialect = dialect;
		this.admin = new JdbcTemplate(admin);
		if (dialect == SqlDialect.POSTGRESQL) {
			this.schema = "it_clock_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
			this.searchPath = this.admin.queryForObject("SELECT current_setting('search_path')", String.class);
			this.admin.execute("CREATE SCHEMA " + this.schema);
			this.admin.execute("CREATE FUNCTION " + this.schema + ".clock_timestamp() RETURNS timestamptz"
					+ " LANGUAGE sql VOLATILE AS $$ SELECT pg_catalog.clock_timestamp() + CAST(current_setting('"
					+ OFFSET_SETTING + "') AS bigint) * INTERVAL '1 millisecond' $$");
		}
		else {
			this.schema = null;
			this.searchPath = null;
		}
	}

	/**
	 * A clock that starts at the database's own time.
	 * @param dialect the database's dialect
	 * @param admin a data source on the database, for what the clock needs there (a
	 * schema and a function on PostgreSQL)
	 * @return the clock
	 */
	public static SteppedDatabaseClock on(SqlDialect dialect, DataSource admin) {
		return new SteppedDatabaseClock(dialect, admin);
	}

	/**
	 * Connections of another data source, on the moved clock.
	 * @param target the data source
	 * @return connections of {@code target} that see the clock moved by the offset at the
	 * time each is handed out
	 */
	public DataSource dataSource(DataSource target) {
		return new DelegatingDataSource(target) {

			@Override
			public Connection getConnection() throws SQLException {
				return stepped(super.getConnection());
			}

			@Override
			public Connection getConnection(String username, String password) throws SQLException {
				return stepped(super.getConnection(username, password));
			}

		};
	}

	/**
	 * Step the clock, for the connections handed out from now on.
	 * @param by how far, forward if positive
	 */
	public void step(Duration by) {
		this.offsetMillis += by.toMillis();
	}

	@Override
	public void close() {
		if (this.schema != null) {
			this.admin.execute("DROP SCHEMA IF EXISTS " + this.schema + " CASCADE");
		}
	}

	private Connection stepped(Connection connection) throws SQLException {
		long offset = this.offsetMillis;
		if (offset == 0) {
			return connection;
		}
		try {
			return switch (this.dialect) {
				case MYSQL -> {
					try (Statement statement = connection.createStatement()) {
						statement.execute("SET SESSION timestamp = UNIX_TIMESTAMP(SYSDATE(6)) + "
								+ BigDecimal.valueOf(offset, 3).toPlainString());
					}
					yield proxy(Connection.class, connection, UnaryOperator.identity(),
							"SET SESSION timestamp = DEFAULT");
				}
				case POSTGRESQL -> {
					try (PreparedStatement statement = connection
						.prepareStatement("SELECT set_config('search_path', ?, false), set_config(?, ?, false)")) {
						statement.setString(1, this.schema + ", pg_catalog, " + this.searchPath);
						statement.setString(2, OFFSET_SETTING);
						statement.setString(3, Long.toString(offset));
						statement.executeQuery().close();
					}
					yield proxy(Connection.class, connection, UnaryOperator.identity(),
							"SELECT set_config('search_path', '" + this.searchPath.replace("'", "''") + "', false)");
				}
				case H2 -> {
					String now = this.dialect.currentTimeMillis();
					String moved = "(" + now + " + " + offset + ")";
					yield proxy(Connection.class, connection, (sql) -> sql.replace(now, moved), null);
				}
			};
		}
		catch (SQLException | RuntimeException ex) {
			connection.close();
			throw ex;
		}
	}

	/**
	 * A connection or a statement whose SQL is rewritten before it reaches the target,
	 * and whose plain statements are too; a connection that runs a statement before it
	 * closes, so that it goes back to its pool on the database's own clock.
	 */
	@SuppressWarnings("unchecked")
	private static <T> T proxy(Class<T> type, T target, UnaryOperator<String> rewrite, @Nullable String beforeClose) {
		return (T) Proxy.newProxyInstance(SteppedDatabaseClock.class.getClassLoader(), new Class<?>[] { type },
				(proxy, method, args) -> {
					if (beforeClose != null && method.getName().equals("close")) {
						try (Statement statement = ((Connection) target).createStatement()) {
							statement.execute(beforeClose);
						}
						catch (SQLException ex) {
							// Closed or broken already: the pool drops it.
						}
					}
					if (args != null && args.length > 0 && args[0] instanceof String sql
							&& TAKING_SQL.contains(method.getName())) {
						args[0] = rewrite.apply(sql);
					}
					Object result;
					try {
						result = method.invoke(target, args);
					}
					catch (InvocationTargetException ex) {
						throw ex.getCause();
					}
					return (method.getReturnType() == Statement.class)
							? proxy(Statement.class, (Statement) result, rewrite, null) : result;
				});
	}

}
