package io.github.dbleader.test;

import java.sql.SQLException;

import org.testcontainers.containers.JdbcDatabaseContainer;
import org.testcontainers.mysql.MySQLContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The servers {@link TestServers} starts in Testcontainers containers where a Docker
 * engine runs: real MySQL (the embedded server is MariaDB) and PostgreSQL. A container
 * lives as long as the JVM; Testcontainers removes it afterwards.
 */
final class ContainerServers {

	/** MySQL's long-term support release. */
	static final String MYSQL_IMAGE = "mysql:8.4";

	/** The PostgreSQL major version of CI's Debian server. */
	static final String POSTGRESQL_IMAGE = "postgres:15-alpine";

	private ContainerServers() {
	}

	static TestServer mysql() {
		return start(new MySQLContainer(MYSQL_IMAGE), "MySQL", TestServers.MYSQL_VERSION);
	}

	static TestServer postgresql() {
		return start(new PostgreSQLContainer(POSTGRESQL_IMAGE), "PostgreSQL", TestServers.POSTGRESQL_VERSION);
	}

	private static TestServer start(JdbcDatabaseContainer<?> container, String product, String versionQuery) {
		try {
			container.start();
			String version = TestServers.version(container.getJdbcUrl(), container.getUsername(),
					container.getPassword(), versionQuery);
			return new TestServer(
					product + " " + version + " in a Testcontainers container (" + container.getDockerImageName() + ")",
					container.getJdbcUrl(), container.getUsername(), container.getPassword());
		}
		catch (RuntimeException | SQLException ex) {
			container.stop();
			throw new IllegalStateException("a Docker engine runs, but the " + container.getDockerImageName()
					+ " container did not start (" + TestServers.reasons(ex) + "; "
					+ TestServers.TESTCONTAINERS_VARIABLE + "=false uses an embedded server instead)", ex);
		}
	}

}
