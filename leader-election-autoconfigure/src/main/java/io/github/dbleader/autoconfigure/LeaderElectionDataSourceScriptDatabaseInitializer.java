package io.github.dbleader.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.List;

import javax.sql.DataSource;

import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;

import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.core.io.ByteArrayResource;

/**
 * {@link DataSourceScriptDatabaseInitializer} that creates the lease and candidates tables,
 * with the configured names, from the script of the dialect
 * ({@code schema-@@platform@@.sql}, MariaDB using the MySQL one). The statements are
 * idempotent. As a {@code DataSourceScriptDatabaseInitializer} it runs after Flyway and
 * Liquibase, and before the beans that depend on database initialization. Register a bean
 * of this type to replace it.
 */
public class LeaderElectionDataSourceScriptDatabaseInitializer extends DataSourceScriptDatabaseInitializer {

	private final SqlDialect dialect;

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
		super(dataSource, settings(mode, dialect));
		this.dialect = dialect;
		this.tables = tables;
	}

	private static DatabaseInitializationSettings settings(DatabaseInitializationMode mode, SqlDialect dialect) {
		DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
		settings.setSchemaLocations(List.of(LeaseSchema.LOCATION.replace("@@platform@@", dialect.platform())));
		settings.setMode(mode);
		return settings;
	}

	@Override
	protected void runScripts(Scripts scripts) {
		// The script in the jar names the default tables; run it with the configured names.
		ByteArrayResource script = new ByteArrayResource(
				LeaseSchema.script(this.dialect, this.tables).getBytes(StandardCharsets.UTF_8),
				"leader election schema for " + this.dialect.platform());
		super.runScripts(new Scripts(List.of(script)).continueOnError(scripts.isContinueOnError())
			.separator(scripts.getSeparator())
			.encoding(StandardCharsets.UTF_8));
	}

}
