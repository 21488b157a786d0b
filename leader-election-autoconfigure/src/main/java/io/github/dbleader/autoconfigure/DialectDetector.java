package io.github.dbleader.autoconfigure;

import java.sql.DatabaseMetaData;

import javax.sql.DataSource;

import io.github.dbleader.election.jdbc.SqlDialect;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;

/**
 * Chooses the SQL dialect: the configured {@code leader-election.jdbc.platform}, or the
 * one matching the product name the {@link DataSource} reports (which takes a connection
 * at start-up; set the platform to avoid it). Detects once, on first use, for every bean
 * that needs the dialect.
 */
final class DialectDetector {

	private final DataSource dataSource;

	private final LeaderElectionProperties.Jdbc properties;

	private volatile @Nullable SqlDialect detected;

	DialectDetector(DataSource dataSource, LeaderElectionProperties.Jdbc properties) {
		this.dataSource = dataSource;
		this.properties = properties;
	}

	SqlDialect getDialect() {
		SqlDialect dialect = this.detected;
		if (dialect == null) {
			dialect = detect(this.dataSource, this.properties);
			this.detected = dialect;
		}
		return dialect;
	}

	private static SqlDialect detect(DataSource dataSource, LeaderElectionProperties.Jdbc properties) {
		SqlDialect configured = properties.determineConfiguredDialect();
		if (configured != null) {
			return configured;
		}
		String product;
		try {
			product = JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName);
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Could not detect the database platform for leader election ("
					+ ex.getMessage() + "); set leader-election.jdbc.platform to mysql, mariadb, postgresql or h2",
					ex);
		}
		try {
			return SqlDialect.forName(product);
		}
		catch (IllegalArgumentException ex) {
			throw LeaderElectionProperties.invalid("jdbc.platform", null,
					"it is not set, and the database '" + product
							+ "' detected from the DataSource is not supported by leader election",
					LeaderElectionProperties.Jdbc.SUPPORTED_PLATFORMS
							+ "; set it only if the database is compatible with one of these");
		}
	}

}
