package io.github.dbleader.autoconfigure;

import java.time.Duration;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.jdbc.DataSourceUnwrapper;
import org.springframework.util.ClassUtils;

/**
 * The connections the election's own statements use (invariants.md I8): a tiny HikariCP
 * pool of their own, built from the settings of the election's HikariCP
 * {@code DataSource} ({@link ElectionDataSource}), so that renewals still get a
 * connection when business load exhausts the application's pool; or that
 * {@code DataSource} itself when it is not a HikariCP pool or the dedicated pool is
 * disabled. Deliberately not a {@code DataSource} bean, so that it never competes with
 * the application's {@code DataSource} for injection. Closed when the context closes,
 * after the election service stopped.
 */
final class ElectionConnectionPool implements DisposableBean {

	private static final Logger logger = LoggerFactory.getLogger(ElectionConnectionPool.class);

	private static final boolean HIKARI_PRESENT = ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource",
			ElectionConnectionPool.class.getClassLoader());

	private final DataSource dataSource;

	private final @Nullable AutoCloseable dedicated;

	private ElectionConnectionPool(DataSource dataSource, @Nullable AutoCloseable dedicated) {
		this.dataSource = dataSource;
		this.dedicated = dedicated;
	}

	/**
	 * Create the connections of the election.
	 * @param application the data source chosen for the election
	 * @param dedicatedPool whether to build a dedicated pool if possible
	 * @param size maximum size of the dedicated pool
	 * @param connectionTimeout longest wait for a connection of the dedicated pool
	 * @return the pool
	 */
	static ElectionConnectionPool create(DataSource application, boolean dedicatedPool, int size,
			Duration connectionTimeout) {
		if (dedicatedPool && HIKARI_PRESENT) {
			HikariDataSource hikari = DataSourceUnwrapper.unwrap(application, HikariConfigMXBean.class,
					HikariDataSource.class);
			if (hikari != null) {
				HikariDataSource pool = Hikari.copy(hikari, size, connectionTimeout);
				return new ElectionConnectionPool(pool, pool);
			}
			logger.info("Leader election uses the application's DataSource for its statements: "
					+ "a dedicated pool is built only from a HikariCP DataSource");
		}
		return new ElectionConnectionPool(application, null);
	}

	DataSource getDataSource() {
		return this.dataSource;
	}

	boolean isDedicated() {
		return this.dedicated != null;
	}

	@Override
	public void destroy() throws Exception {
		if (this.dedicated != null) {
			this.dedicated.close();
		}
	}

	/** Kept apart so that HikariCP classes load only when HikariCP is present. */
	private static final class Hikari {

		static HikariDataSource copy(HikariDataSource application, int size, Duration connectionTimeout) {
			// The no-argument constructor keeps the pool lazy: no connection and no
			// thread
			// before the election's first statement, after the context has started.
			HikariDataSource pool = new HikariDataSource();
			application.copyStateTo(pool);
			String name = application.getPoolName();
			pool.setPoolName(((name != null) ? name + "-" : "") + "leader-election");
			pool.setMaximumPoolSize(size);
			pool.setMinimumIdle(Math.min(1, size));
			// A bounded wait for a connection counts against the renewal's deadline.
			long timeout = Math.max(250, connectionTimeout.toMillis());
			pool.setConnectionTimeout(timeout);
			pool.setValidationTimeout(Math.min(pool.getValidationTimeout(), timeout));
			// Start even if the database is down: the election retries every renew
			// interval.
			pool.setInitializationFailTimeout(-1);
			pool.setRegisterMbeans(false);
			pool.setHealthCheckRegistry(null);
			return pool;
		}

	}

}
