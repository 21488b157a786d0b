package io.github.dbleader.election.jdbc;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What kind of server a data source reaches, as far as the statements differ.
 *
 * @param certifies whether it replicates by certifying write sets (Galera: row locks are
 * local to one cluster node)
 * @param mariaDb whether it is MariaDB, whose {@code SET STATEMENT} sets a variable for
 * one statement
 */
record ServerKind(boolean certifies, boolean mariaDb) {

	static final ServerKind SINGLE = new ServerKind(false, false);

	/**
	 * Ask the server that a data source reaches.
	 * @param jdbc statements on the data source
	 * @param dialect the dialect
	 * @return the kind of server; {@link #SINGLE} where the platform never certifies
	 */
	static ServerKind of(JdbcTemplate jdbc, SqlDialect dialect) {
		String check = dialect.certificationCheck();
		if (check == null) {
			return SINGLE;
		}
		Map<String, String> variables = new HashMap<>();
		jdbc.query(check, (rs) -> {
			variables.put(rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2));
		});
		return new ServerKind("ON".equalsIgnoreCase(variables.get("wsrep_on")),
				String.valueOf(variables.get("version")).contains("MariaDB"));
	}

	/**
	 * Choose the statements for the server that a data source reaches, asking it only
	 * where the platform has statements for a MariaDB Galera cluster.
	 * @param <S> the statements' type
	 * @param jdbc statements on the data source
	 * @param dialect the dialect
	 * @param singleServer the statements for one server
	 * @param galeraCluster the statements for a MariaDB Galera cluster, or {@code null}
	 * @return the statements to use
	 */
	static <S> S choose(JdbcTemplate jdbc, SqlDialect dialect, S singleServer, @Nullable S galeraCluster) {
		return (galeraCluster != null && of(jdbc, dialect).mariaDbGalera()) ? galeraCluster : singleServer;
	}

	boolean mariaDbGalera() {
		return this.certifies && this.mariaDb;
	}

}
