package io.github.dbleader.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;

import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * {@link DataSourceScriptDatabaseInitializer} that creates the lease and candidates
 * tables, with the configured names, from the script of the dialect
 * ({@code schema-@@platform@@.sql}, MariaDB using the MySQL one), safely when several
 * nodes do it at once ({@link LeaseSchema#create}). As a
 * {@code DataSourceScriptDatabaseInitializer} it comes after Flyway and Liquibase, and
 * before the beans that depend on database initialization.
 *
 * <p>
 * It does not touch the database while the context starts, so that an application whose
 * database is slow or away at boot still starts: the election service runs
 * {@link #initializeDatabase()} before its first heartbeat, and again every renew
 * interval until the database answers, and joins no election before the tables exist.
 * Register a bean of this type to replace it.
 */
public class LeaderElectionDataSourceScriptDatabaseInitializer extends DataSourceScriptDatabaseInitializer {

	private final DatabaseInitializationMode mode;

	private final Supplier<SqlDialect> dialect;

	private final LeaseTables tables;

	/**
	 * Create an initializer.
	 * @param dataSource where to create the tables
	 * @param mode when to create them
	 * @param dialect the dialect, which chooses the script
	 * @param tables the table names
	 */
	public LeaderElectionDataSourceScriptDatabaseInitializer(DataSource dataSource, DatabaseInitializationMode mode,
			SqlDialect dialect, LeaseTables tables) {
		this(dataSource, mode, () -> dialect, tables);
	}

	/**
	 * Create an initializer whose dialect is known only once the database answers.
	 * @param dataSource where to create the tables
	 * @param mode when to create them
	 * @param dialect the dialect, which chooses the script; asked when the tables are
	 * created
	 * @param tables the table names
	 */
	public LeaderElectionDataSourceScriptDatabaseInitializer(DataSource dataSource, DatabaseInitializationMode mode,
			Supplier<SqlDialect> dialect, LeaseTables tables) {
		super(dataSource, settings(mode));
		this.mode = mode;
		this.dialect = dialect;
		this.tables = tables;
	}

	private static DatabaseInitializationSettings settings(DatabaseInitializationMode mode) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		settings.setSchemaLocations(List.of());
		settings.setMode(mode);
		return settings;
	}

	/**
	 * Does nothing: the tables are created when the election service starts
	 * ({@link #initializeDatabase()}), not while the context starts.
	 */
	@Override
	public void afterPropertiesSet() {
	}

	/**
	 * Whether the database is an embedded one, which needs a connection: a database that
	 * does not answer fails the call (and the election tries again), rather than reading
	 * as not embedded, which would leave an embedded database without its tables.
	 * @return whether the database is embedded
	 * @throws DataAccessResourceFailureException if the database does not answer
	 */
	@Override
	protected boolean isEmbeddedDatabase() {
		try (Connection connection = getDataSource().getConnection()) {
			// Answered: Boot's check can tell.
		}
		catch (SQLException ex) {
			throw new DataAccessResourceFailureException("Could not reach the database of leader election", ex);
		}
		return super.isEmbeddedDatabase();
	}

	/**
	 * Create the tables if the mode says so.
	 * @return whether the script ran
	 * @throws org.springframework.dao.DataAccessException if the database does not answer
	 * or the script fails
	 */
	@Override
	public boolean initializeDatabase() {
		if (this.mode == DatabaseInitializationMode.NEVER
				|| (this.mode == DatabaseInitializationMode.EMBEDDED && !isEmbeddedDatabase())) {
			return false;
		}
		LeaseSchema.create(getDataSource(), this.dialect.get(), this.tables);
		return true;
	}

}
