package io.github.dbleader.test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

/**
 * The databases the integration tests run against. MySQL-protocol and PostgreSQL servers
 * are given by environment variables ({@code LEADER_ELECTION_TEST_MYSQL_URL},
 * {@code _USERNAME}, {@code _PASSWORD}, and the same with {@code POSTGRESQL}); without them
 * the local defaults of a developer machine are used. {@link #MARIADB} is the MySQL-protocol
 * server again, reached through MariaDB Connector/J. An unreachable server fails the test
 * with a message that says what to set: a missing database is never a silent skip.
 */
public enum TestDatabase {

	/** MySQL or MariaDB through MySQL Connector/J. */
	MYSQL("LEADER_ELECTION_TEST_MYSQL", "jdbc:mysql://127.0.0.1:3306/test", "root", "", "mysql"),

	/**
	 * MariaDB (or MySQL) through MariaDB Connector/J: {@code LEADER_ELECTION_TEST_MARIADB_URL},
	 * or else {@link #MYSQL}'s URL with {@code jdbc:mariadb:} for {@code jdbc:mysql:}, and
	 * {@link #MYSQL}'s user name and password.
	 */
	MARIADB("LEADER_ELECTION_TEST_MYSQL", "jdbc:mariadb://127.0.0.1:3306/test", "root", "", "mysql") {

		private static final String URL_VARIABLE = "LEADER_ELECTION_TEST_MARIADB_URL";

		@Override
		public String url() {
			String url = variable(URL_VARIABLE, null);
			return (url != null) ? url : MYSQL.url().replaceFirst("^jdbc:mysql:", "jdbc:mariadb:");
		}

		@Override
		String urlVariable() {
			return URL_VARIABLE + " (or LEADER_ELECTION_TEST_MYSQL_URL, with jdbc:mariadb: for jdbc:mysql:)";
		}

	},

	/** PostgreSQL. */
	POSTGRESQL("LEADER_ELECTION_TEST_POSTGRESQL", "jdbc:postgresql://127.0.0.1:5432/test", "postgres", "",
			"postgresql"),

	/** H2 in memory, one database per JVM. */
	H2(null, "jdbc:h2:mem:leader_election_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "", "h2");

	private final String envPrefix;

	private final String defaultUrl;

	private final String defaultUsername;

	private final String defaultPassword;

	private final String platform;

	TestDatabase(String envPrefix, String defaultUrl, String defaultUsername, String defaultPassword,
			String platform) {
		this.envPrefix = envPrefix;
		this.defaultUrl = defaultUrl;
		this.defaultUsername = defaultUsername;
		this.defaultPassword = defaultPassword;
		this.platform = platform;
	}

	/**
	 * The platform name, as in the starter's {@code schema-<platform>.sql}.
	 * @return {@code mysql}, {@code postgresql} or {@code h2}
	 */
	public String platform() {
		return this.platform;
	}

	/** @return the JDBC URL, from the environment or the local default */
	public String url() {
		return env("_URL", this.defaultUrl);
	}

	/** @return the user name */
	public String username() {
		return env("_USERNAME", this.defaultUsername);
	}

	/** @return the password */
	public String password() {
		return env("_PASSWORD", this.defaultPassword);
	}

	/**
	 * A new pool on this database, checked to be reachable.
	 * @param maxPoolSize maximum pool size
	 * @return the pool; close it after the test
	 */
	public HikariDataSource dataSource(int maxPoolSize) {
		return dataSource(url(), maxPoolSize);
	}

	/**
	 * A new pool on this database at another URL (e.g. through a proxy), checked to be
	 * reachable.
	 * @param url the URL
	 * @param maxPoolSize maximum pool size
	 * @return the pool; close it after the test
	 */
	public HikariDataSource dataSource(String url, int maxPoolSize) {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(url);
		dataSource.setUsername(username());
		dataSource.setPassword(password());
		dataSource.setMaximumPoolSize(maxPoolSize);
		dataSource.setMinimumIdle(0);
		dataSource.setConnectionTimeout(2000);
		dataSource.setInitializationFailTimeout(-1);
		dataSource.setPoolName("test-" + name().toLowerCase() + "-" + UUID.randomUUID().toString().substring(0, 8));
		checkReachable(dataSource);
		return dataSource;
	}

	/**
	 * Drop tables if they exist, so that a test starts from a schema of its own.
	 * @param dataSource where
	 * @param tables the table names
	 */
	public void dropTables(DataSource dataSource, String... tables) {
		try (Connection connection = dataSource.getConnection()) {
			for (String table : tables) {
				connection.createStatement().execute("DROP TABLE IF EXISTS " + table);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void checkReachable(HikariDataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			connection.isValid(2);
		}
		catch (SQLException ex) {
			dataSource.close();
			throw new IllegalStateException("The " + name() + " test database at " + dataSource.getJdbcUrl()
					+ " is not reachable (" + ex.getMessage() + "). Start it, or point the tests at one with "
					+ urlVariable() + ", " + this.envPrefix + "_USERNAME and " + this.envPrefix
					+ "_PASSWORD (bash .ci/run does this for you).", ex);
		}
	}

	/** @return the environment variable, or variables, that give the URL */
	String urlVariable() {
		return this.envPrefix + "_URL";
	}

	private String env(String suffix, String fallback) {
		return (this.envPrefix != null) ? variable(this.envPrefix + suffix, fallback) : fallback;
	}

	private static @Nullable String variable(String name, @Nullable String fallback) {
		String value = System.getenv(name);
		return (value != null && !value.isEmpty()) ? value : fallback;
	}

}
