package io.github.dbleader.autoconfigure;

import java.sql.DatabaseMetaData;
import java.util.List;

import javax.sql.DataSource;

import io.github.dbleader.election.jdbc.SqlDialect;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanWrapper;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.jdbc.DatabaseDriver;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.util.StringUtils;

/**
 * Chooses the SQL dialect without waiting for the database where it can: the configured
 * {@code leader-election.jdbc.platform}, else the one of the JDBC URL
 * ({@code leader-election.jdbc.url}, or the URL the {@link DataSource} pool was built with),
 * else the one matching the product name the database reports, which needs a connection:
 * tried once at start-up, and if the database does not answer, again on first use. An
 * unsupported database named by the property or the URL, or reported by a database that
 * answers at start-up, fails start-up.
 */
final class DialectDetector {

	private static final List<String> URL_PROPERTIES = List.of("jdbcUrl", "url");

	private final DataSource dataSource;

	private volatile @Nullable SqlDialect detected;

	/**
	 * Create a detector, choosing the dialect at once if the property or the URL names it.
	 * @param dataSource the election's data source
	 * @param properties the election's JDBC properties
	 * @throws InvalidLeaderElectionPropertyException if the property or the URL names a
	 * database that is not supported
	 */
	DialectDetector(DataSource dataSource, LeaderElectionProperties.Jdbc properties) {
		this.dataSource = dataSource;
		SqlDialect configured = properties.determineConfiguredDialect();
		this.detected = (configured != null) ? configured
				: fromUrl(StringUtils.hasText(properties.getUrl()) ? properties.getUrl() : urlOf(dataSource));
	}

	/**
	 * Return the dialect if it is known without a connection or the database answers now:
	 * so that a database that answers at start-up but is not supported still stops it.
	 * @return the dialect, or {@code null} if the database did not answer
	 * @throws InvalidLeaderElectionPropertyException if the database is not supported
	 */
	@Nullable SqlDialect getDialectIfAnswering() {
		try {
			return getDialect();
		}
		catch (InvalidLeaderElectionPropertyException ex) {
			throw ex;
		}
		catch (IllegalStateException ex) {
			return null;
		}
	}

	/**
	 * Return the dialect, asking the database the first time if needed.
	 * @return the dialect
	 * @throws IllegalStateException if the database does not answer
	 * @throws InvalidLeaderElectionPropertyException if the database is not supported
	 */
	SqlDialect getDialect() {
		SqlDialect dialect = this.detected;
		if (dialect == null) {
			dialect = detect(this.dataSource);
			this.detected = dialect;
		}
		return dialect;
	}

	private static @Nullable SqlDialect fromUrl(@Nullable String url) {
		if (url == null) {
			return null;
		}
		DatabaseDriver driver = DatabaseDriver.fromJdbcUrl(url);
		return switch (driver) {
			case MYSQL, MARIADB -> SqlDialect.MYSQL;
			case POSTGRESQL -> SqlDialect.POSTGRESQL;
			case H2 -> SqlDialect.H2;
			// Wrappers and proxies name no database: ask the database itself.
			case UNKNOWN, TESTCONTAINERS, AWS_WRAPPER -> null;
			default -> throw unsupported("the database '" + driver.getId() + "' of the DataSource's URL");
		};
	}

	/**
	 * The JDBC URL the data source (a connection pool or a driver data source) was built
	 * with, if it tells.
	 * @param dataSource the data source
	 * @return the URL, or {@code null}
	 */
	static @Nullable String urlOf(DataSource dataSource) {
		DataSource target = dataSource;
		while (target instanceof DelegatingDataSource delegating && delegating.getTargetDataSource() != null) {
			target = delegating.getTargetDataSource();
		}
		BeanWrapper bean = new BeanWrapperImpl(target);
		for (String property : URL_PROPERTIES) {
			try {
				if (bean.isReadableProperty(property) && bean.getPropertyValue(property) instanceof String url
						&& url.startsWith("jdbc:")) {
					return url;
				}
			}
			catch (RuntimeException ex) {
				// A getter that fails tells nothing: ask the database.
			}
		}
		return null;
	}

	private static SqlDialect detect(DataSource dataSource) {
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
			throw unsupported("the database '" + product + "' detected from the DataSource");
		}
	}

	private static InvalidLeaderElectionPropertyException unsupported(String database) {
		return LeaderElectionProperties.invalid("jdbc.platform", null,
				"it is not set, and " + database + " is not supported by leader election",
				LeaderElectionProperties.Jdbc.SUPPORTED_PLATFORMS
						+ "; set it only if the database is compatible with one of these");
	}

}
