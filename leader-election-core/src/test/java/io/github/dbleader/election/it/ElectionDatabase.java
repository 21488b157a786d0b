package io.github.dbleader.election.it;

import java.net.InetSocketAddress;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import io.github.dbleader.test.TcpProxy;
import io.github.dbleader.test.TestDatabase;
import org.h2.tools.Server;
import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.JdbcDatabaseContainer;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The database an election integration test runs on: its dialect, how to open a pool on
 * it directly or through a {@link TcpProxy}, and its tables. A MySQL-protocol or
 * PostgreSQL server is reached at its JDBC URL; H2 runs in memory in this JVM with a TCP
 * server beside it, so that a node can reach it through a proxy too. A cluster whose
 * nodes each have a URL of their own (Galera) spreads the pools over those nodes, by
 * node.
 */
public final class ElectionDatabase implements AutoCloseable {

	private static final Pattern SERVER_URL = Pattern
		.compile("(jdbc:(?:mysql|mariadb|postgresql)://)([^/:?,]+)(?::(\\d+))?(.*)");

	private final SqlDialect dialect;

	private final String url;

	/** The URL of each node of a cluster, or just {@link #url}. */
	private final List<String> nodeUrls;

	private final String username;

	private final String password;

	private final InetSocketAddress serverAddress;

	private final Function<InetSocketAddress, String> urlAtAddress;

	private final @Nullable Server h2Server;

	private ElectionDatabase(SqlDialect dialect, String url, String username, String password,
			InetSocketAddress serverAddress, Function<InetSocketAddress, String> urlAtAddress,
			@Nullable Server h2Server) {
		this(dialect, List.of(url), username, password, serverAddress, urlAtAddress, h2Server);
	}

	private ElectionDatabase(SqlDialect dialect, List<String> nodeUrls, String username, String password,
			InetSocketAddress serverAddress, Function<InetSocketAddress, String> urlAtAddress,
			@Nullable Server h2Server) {
		this.dialect = dialect;
		this.url = nodeUrls.get(0);
		this.nodeUrls = List.copyOf(nodeUrls);
		this.username = username;
		this.password = password;
		this.serverAddress = serverAddress;
		this.urlAtAddress = urlAtAddress;
		this.h2Server = h2Server;
	}

	/**
	 * The server a {@link TestDatabase} names (from the environment or the local
	 * default). Fails, never skips, when the server cannot be reached.
	 * @param database the MySQL-protocol or PostgreSQL test database
	 * @return the database
	 * @throws IllegalStateException if the server is unreachable; the message says what
	 * to set
	 */
	public static ElectionDatabase of(TestDatabase database) {
		database.dataSource(1).close();
		return server(SqlDialect.forName(database.platform()), database.url(), database.username(),
				database.password());
	}

	/**
	 * The database of a started Testcontainers container.
	 * @param container the container
	 * @param dialect its dialect
	 * @return the database
	 */
	public static ElectionDatabase of(JdbcDatabaseContainer<?> container, SqlDialect dialect) {
		return server(dialect, container.getJdbcUrl(), container.getUsername(), container.getPassword());
	}

	/**
	 * A MySQL-protocol or PostgreSQL server at a JDBC URL of the form
	 * {@code jdbc:<driver>://host[:port]/...}.
	 * @param dialect its dialect
	 * @param url the URL
	 * @param username user name
	 * @param password password
	 * @return the database
	 */
	public static ElectionDatabase server(SqlDialect dialect, String url, String username, String password) {
		Matcher matcher = SERVER_URL.matcher(url);
		if (!matcher.matches()) {
			throw new IllegalArgumentException("Cannot find host and port in JDBC URL " + url);
		}
		int port = (matcher.group(3) != null) ? Integer.parseInt(matcher.group(3))
				: (dialect == SqlDialect.POSTGRESQL) ? 5432 : 3306;
		InetSocketAddress address = InetSocketAddress.createUnresolved(matcher.group(2), port);
		String prefix = matcher.group(1);
		String rest = matcher.group(4);
		return new ElectionDatabase(dialect, url, username, password, address,
				(at) -> prefix + at.getHostString() + ":" + at.getPort() + rest, null);
	}

	/**
	 * A cluster of MySQL-protocol servers that replicate each other (Galera), each node
	 * at a URL of its own. A pool goes to the node that its name's election node is
	 * assigned: the pools of one election node ({@code a}, {@code a-election},
	 * {@code a-fenced}) go to the same cluster node, while election nodes {@code a},
	 * {@code b} and {@code c} (and {@code node-1}, {@code node-2}, {@code node-3}) each
	 * go to another one, so that a change of holder and the fenced work it must be
	 * ordered against run on different cluster nodes. A {@link TcpProxy} forwards to the
	 * first node. The test's observer pools (names ending in {@code observer}) read
	 * causally ({@code wsrep_sync_wait = 1}): what a node committed on one cluster node,
	 * the test sees at once on another, while the election nodes' pools see the cluster
	 * as applications do.
	 * @param nodeUrls the URL of each cluster node
	 * @param username user name
	 * @param password password
	 * @return the database
	 */
	public static ElectionDatabase cluster(List<String> nodeUrls, String username, String password) {
		ElectionDatabase first = server(SqlDialect.MYSQL, nodeUrls.get(0), username, password);
		return new ElectionDatabase(SqlDialect.MYSQL, nodeUrls, username, password, first.serverAddress,
				first.urlAtAddress, null);
	}

	/**
	 * The URL of the cluster node that a pool of that name is assigned, the one URL of a
	 * single server.
	 * @param name the pool's name
	 * @return the URL
	 */
	public String urlFor(String name) {
		// The election node's id: "a" of "a-election"; node ids of the form "node-1"
		// whole.
		String node = name.startsWith("node-") ? name : name.split("-", 2)[0];
		return this.nodeUrls.get(Math.floorMod(node.hashCode() - "a".hashCode(), this.nodeUrls.size()));
	}

	/**
	 * @return the URL of each node of a cluster, or the one URL of a single server
	 */
	public List<String> nodeUrls() {
		return this.nodeUrls;
	}

	/**
	 * A new H2 database in memory with a TCP server for it on a free loopback port.
	 * @return the database; close it to stop the server
	 */
	public static ElectionDatabase h2InMemory() {
		String name = "it_" + UUID.randomUUID().toString().replace("-", "");
		try {
			Server server = Server.createTcpServer("-tcpPort", "0").start();
			InetSocketAddress address = InetSocketAddress.createUnresolved("127.0.0.1", server.getPort());
			return new ElectionDatabase(SqlDialect.H2, "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", "", address,
					(at) -> "jdbc:h2:tcp://" + at.getHostString() + ":" + at.getPort() + "/mem:" + name, server);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not start an H2 TCP server", ex);
		}
	}

	/**
	 * @return the dialect
	 */
	public SqlDialect dialect() {
		return this.dialect;
	}

	/**
	 * @return where a {@link TcpProxy} in front of this database forwards to
	 */
	public InetSocketAddress serverAddress() {
		return new InetSocketAddress(this.serverAddress.getHostString(), this.serverAddress.getPort());
	}

	/**
	 * A new pool on this database.
	 * @param name what the pool is for, for its thread names
	 * @param maxPoolSize maximum pool size
	 * @param customizer changes to the pool's defaults (connection timeout 2 s, no idle
	 * minimum, broken connections dropped as {@link BrokenConnectionEviction} says)
	 * @return the started pool
	 */
	public HikariDataSource dataSource(String name, int maxPoolSize, Consumer<HikariConfig> customizer) {
		return dataSource(urlFor(name), name, maxPoolSize, customizer);
	}

	/**
	 * A new pool that reaches this database through a proxy.
	 * @param proxy the proxy, forwarding to {@link #serverAddress()}
	 * @param name what the pool is for
	 * @param maxPoolSize maximum pool size
	 * @param customizer changes to the pool's defaults
	 * @return the started pool
	 */
	public HikariDataSource dataSourceThrough(TcpProxy proxy, String name, int maxPoolSize,
			Consumer<HikariConfig> customizer) {
		return dataSource(this.urlAtAddress.apply(proxy.address()), name, maxPoolSize, customizer);
	}

	/**
	 * Drop and create the election tables of one test class.
	 * @param dataSource where
	 * @param tables the names, owned by the caller
	 */
	public void recreateTables(HikariDataSource dataSource, LeaseTables tables) {
		dropTables(dataSource, tables.allTables().toArray(String[]::new));
		LeaseSchema.create(dataSource, this.dialect, tables);
	}

	/**
	 * Drop tables if they exist.
	 * @param dataSource where
	 * @param tables the names, owned by the caller
	 */
	public void dropTables(HikariDataSource dataSource, String... tables) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		for (String table : tables) {
			jdbc.execute("DROP TABLE IF EXISTS " + table);
		}
	}

	@Override
	public void close() {
		if (this.h2Server != null) {
			this.h2Server.stop();
		}
	}

	@Override
	public String toString() {
		return this.dialect + " at " + String.join(", ", this.nodeUrls);
	}

	private HikariDataSource dataSource(String jdbcUrl, String name, int maxPoolSize,
			Consumer<HikariConfig> customizer) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(jdbcUrl);
		config.setUsername(this.username);
		config.setPassword(this.password);
		config.setMaximumPoolSize(maxPoolSize);
		config.setMinimumIdle(0);
		// Generous for a busy machine: a pool also sets the validation timeout as the
		// network timeout of a new connection's set-up.
		config.setConnectionTimeout(2000);
		config.setValidationTimeout(1000);
		config.setPoolName("it-" + name);
		config.setExceptionOverride(new BrokenConnectionEviction());
		if (this.nodeUrls.size() > 1 && name.endsWith("observer")) {
			config.setConnectionInitSql("SET SESSION wsrep_sync_wait = 1");
		}
		customizer.accept(config);
		return new HikariDataSource(config);
	}

}
