package io.github.dbleader.autoconfigure;

import java.sql.DatabaseMetaData;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import io.github.dbleader.election.MonotonicClock;
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
 * ({@code leader-election.jdbc.url}, or the URL the {@link DataSource} pool was built
 * with), else the one matching the product name the database reports, which needs a
 * connection: tried at start-up, and if the database does not answer, again on first use.
 * An unsupported database named by the property or the URL, or reported by a database
 * that answers at start-up, fails start-up.
 *
 * <p>
 * One detector serves every user of the data source (the lease and lock repositories, the
 * schema, the election's preparation), and asks the database once at a time: callers that
 * come while it asks wait for that answer. A database that did not answer is not asked
 * again until a renew interval after the attempt began, and at least half a renew
 * interval after it ended: meanwhile callers get that failure at once. So start-up with
 * the database away waits for one connection attempt (the pool's connection timeout), not
 * one per repository and one more for the election's start, and the heartbeat, which
 * prepares the database every renew interval until it answers, asks it once per round.
 */
final class DialectDetector {

	private static final List<String> URL_PROPERTIES = List.of("jdbcUrl", "url");

	private final DataSource dataSource;

	private final MonotonicClock clock;

	private final long retryAfterNanos;

	private volatile @Nullable SqlDialect detected;

	/** The last attempt, if the database did not answer it; guarded by {@code this}. */
	private @Nullable FailedAttempt failed;

	/**
	 * Create a detector, choosing the dialect at once if the property or the URL names
	 * it.
	 * @param dataSource the election's data source
	 * @param properties the election's JDBC properties
	 * @param renewInterval the election's renew interval: how long a database that did
	 * not answer is left alone
	 * @param clock the clock that times it
	 * @throws InvalidLeaderElectionPropertyException if the property or the URL names a
	 * database that is not supported
	 */
	DialectDetector(DataSource dataSource, LeaderElectionProperties.Jdbc properties, Duration renewInterval,
			MonotonicClock clock) {
		this.dataSource = dataSource;
		this.clock = clock;
		this.retryAfterNanos = renewInterval.toNanos();
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
	 * Return the dialect, asking the database if need be, unless it did not answer a
	 * moment ago.
	 * @return the dialect
	 * @throws IllegalStateException if the database does not answer, or did not answer
	 * the last attempt a moment ago
	 * @throws InvalidLeaderElectionPropertyException if the database is not supported
	 */
	SqlDialect getDialect() {
		SqlDialect dialect = this.detected;
		if (dialect != null) {
			return dialect;
		}
		synchronized (this) {
			dialect = this.detected;
			if (dialect != null) {
				return dialect;
			}
			long began = this.clock.nanoTime();
			FailedAttempt failed = this.failed;
			if (failed != null && failed.isRemembered(began)) {
				throw failed.again(began);
			}
			String product;
			try {
				product = productName(this.dataSource);
			}
			catch (IllegalStateException ex) {
				long ended = this.clock.nanoTime();
				this.failed = new FailedAttempt(ex,
						Math.max(began + this.retryAfterNanos, ended + this.retryAfterNanos / 2), ended);
				throw ex;
			}
			this.failed = null;
			dialect = forProduct(product);
			this.detected = dialect;
			return dialect;
		}
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

	private static String productName(DataSource dataSource) {
		try {
			return JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName);
		}
		catch (MetaDataAccessException ex) {
			throw new IllegalStateException("Could not detect the database platform for leader election ("
					+ ex.getMessage() + "); set leader-election.jdbc.platform to mysql, mariadb, postgresql or h2", ex);
		}
	}

	private static SqlDialect forProduct(String product) {
		try {
			return SqlDialect.forName(product);
		}
		catch (IllegalArgumentException ex) {
			throw unsupported("the database '" + product + "' detected from the DataSource");
		}
	}

	/**
	 * An attempt that the database did not answer.
	 *
	 * @param failure what the attempt threw
	 * @param rememberedUntil until when callers get it without asking
	 * ({@link MonotonicClock})
	 * @param ended when it ended
	 */
	private record FailedAttempt(IllegalStateException failure, long rememberedUntil, long ended) {

		boolean isRemembered(long now) {
			return now - this.rememberedUntil < 0;
		}

		IllegalStateException again(long now) {
			return new IllegalStateException(this.failure.getMessage() + " [an attempt "
					+ Duration.ofNanos(now - this.ended).toMillis() + " ms ago; not asked again for "
					+ Duration.ofNanos(this.rememberedUntil - now).toMillis() + " ms]", this.failure.getCause());
		}

	}

	private static InvalidLeaderElectionPropertyException unsupported(String database) {
		return LeaderElectionProperties.invalid("jdbc.platform", null,
				"it is not set, and " + database + " is not supported by leader election",
				LeaderElectionProperties.Jdbc.SUPPORTED_PLATFORMS
						+ "; set it only if the database is compatible with one of these");
	}

}
