package io.github.dbleader.autoconfigure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeaseRepository;
import liquibase.integration.spring.SpringLiquibase;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayMigrationInitializer;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DatabaseInitializerDetector;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link LeaderElectionAutoConfiguration} with Flyway and Liquibase: a
 * migration of the schema script shipped in the jar creates tables the election runs on,
 * and the database initializers run in the order that
 * {@link LeaderElectionDataSourceScriptDatabaseInitializer} and
 * {@link LeaderElectionDependsOnDatabaseInitializationDetector} promise: the migration
 * tool first, then the starter's own script, then the election's beans.
 *
 * <p>
 * The script is read from the jar at test time, so these tests follow changes to it.
 */
class LeaderElectionSchemaMigrationTests {

	private static final String SHIPPED_H2_SCRIPT = "io/github/dbleader/election/jdbc/schema-h2.sql";

	private static final Pattern CREATE_TABLE = Pattern.compile("CREATE\\s+TABLE\\s+IF\\s+NOT\\s+EXISTS\\s+(\\w+)",
			Pattern.CASE_INSENSITIVE);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, LeaderElectionAutoConfiguration.class))
		.withBean(InitializationOrder.class)
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.lease-duration=3s", "leader-election.renew-interval=200ms");

	@TempDir
	Path migrations;

	@ParameterizedTest
	@EnumSource(MigrationTool.class)
	void migrationOfTheShippedScriptCreatesTheTablesTheElectionRunsOn(MigrationTool tool) throws IOException {
		this.contextRunner.withConfiguration(AutoConfigurations.of(tool.autoConfiguration))
			.withPropertyValues(tool.writeMigration(this.migrations, shippedScript()))
			.withPropertyValues("leader-election.jdbc.initialize-schema=never")
			.run((context) -> {
				assertThat(context).hasNotFailed()
					.doesNotHaveBean(LeaderElectionDataSourceScriptDatabaseInitializer.class);
				assertThat(tables(context)).containsAll(shippedTables());
				assertElectionBeansInitializedAfterEveryDatabaseInitializer(context);
				assertBecomesLeader(context);
			});
	}

	@ParameterizedTest
	@EnumSource(MigrationTool.class)
	void migrationRunsBeforeTheStarterCreatesItsTables(MigrationTool tool) throws IOException {
		// The migration records which tables exist while it runs.
		String recordTables = "CREATE TABLE migration_saw AS SELECT table_name FROM information_schema.tables "
				+ "WHERE table_schema = 'PUBLIC';";
		this.contextRunner.withConfiguration(AutoConfigurations.of(tool.autoConfiguration))
			.withPropertyValues(tool.writeMigration(this.migrations, recordTables))
			.withPropertyValues("leader-election.jdbc.initialize-schema=always")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(new JdbcTemplate(context.getBean(DataSource.class))
					.queryForList("SELECT table_name FROM migration_saw", String.class))
					.doesNotContainAnyElementsOf(shippedTables());
				// The election creates its tables when it starts, on its heartbeat
				// thread.
				List<String> shipped = shippedTables();
				await().atMost(Duration.ofSeconds(5)).until(() -> tables(context).containsAll(shipped));
				String migration = single(context, tool.initializerType);
				String starterScript = single(context, LeaderElectionDataSourceScriptDatabaseInitializer.class);
				assertThat(context.getBeanFactory().getBeanDefinition(starterScript).getDependsOn())
					.contains(migration);
				assertThat(context.getBean(InitializationOrder.class).beanNames).containsSubsequence(migration,
						starterScript);
				assertElectionBeansInitializedAfterEveryDatabaseInitializer(context);
				assertBecomesLeader(context);
			});
	}

	private static void assertElectionBeansInitializedAfterEveryDatabaseInitializer(
			AssertableApplicationContext context) {
		ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
		Set<String> initializers = new LinkedHashSet<>();
		SpringFactoriesLoader.forDefaultResourceLocation()
			.load(DatabaseInitializerDetector.class)
			.forEach((detector) -> initializers.addAll(detector.detect(beanFactory)));
		Set<String> electionBeans = new LeaderElectionDependsOnDatabaseInitializationDetector().detect(beanFactory);
		assertThat(electionBeans).contains(single(context, LeaseRepository.class),
				single(context, ElectionService.class));
		List<String> order = context.getBean(InitializationOrder.class).beanNames;
		assertThat(order).containsAll(initializers).containsAll(electionBeans);
		int firstElectionBean = electionBeans.stream().mapToInt(order::indexOf).min().getAsInt();
		assertThat(order.subList(0, firstElectionBean)).as("beans initialized before %s", electionBeans)
			.containsAll(initializers);
	}

	private static void assertBecomesLeader(AssertableApplicationContext context) {
		ElectionService service = context.getBean(ElectionService.class);
		await().atMost(Duration.ofSeconds(5)).until(() -> service.election("default").isLeader());
	}

	private static String single(AssertableApplicationContext context, Class<?> type) {
		String[] names = context.getBeanNamesForType(type);
		assertThat(names).as("beans of %s", type.getName()).hasSize(1);
		return names[0];
	}

	private static String shippedScript() throws IOException {
		return new ClassPathResource(SHIPPED_H2_SCRIPT).getContentAsString(StandardCharsets.UTF_8);
	}

	private static List<String> shippedTables() throws IOException {
		List<String> tables = new ArrayList<>();
		Matcher matcher = CREATE_TABLE.matcher(shippedScript());
		while (matcher.find()) {
			tables.add(matcher.group(1).toUpperCase(Locale.ROOT));
		}
		assertThat(tables).as("tables created by %s", SHIPPED_H2_SCRIPT).isNotEmpty();
		return tables;
	}

	private static List<String> tables(AssertableApplicationContext context) {
		return new JdbcTemplate(context.getBean(DataSource.class)).queryForList(
				"SELECT table_name FROM information_schema.tables WHERE table_schema = 'PUBLIC'", String.class);
	}

	/**
	 * A database migration tool as an application uses it: one migration holding a
	 * script.
	 */
	enum MigrationTool {

		FLYWAY(FlywayAutoConfiguration.class, FlywayMigrationInitializer.class) {

			@Override
			String[] writeMigration(Path directory, String sql) throws IOException {
				Files.writeString(directory.resolve("V1__leader_election_test.sql"), sql);
				return new String[] { "spring.flyway.locations=filesystem:" + directory };
			}

		},

		LIQUIBASE(LiquibaseAutoConfiguration.class, SpringLiquibase.class) {

			@Override
			String[] writeMigration(Path directory, String sql) throws IOException {
				Files.writeString(directory.resolve("leader_election_test.sql"), sql);
				Path changelog = Files.writeString(directory.resolve("changelog.xml"), """
						<?xml version="1.0" encoding="UTF-8"?>
						<databaseChangeLog xmlns="http://www.liquibase.org/xml/ns/dbchangelog"
								xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
								xsi:schemaLocation="http://www.liquibase.org/xml/ns/dbchangelog
									https://www.liquibase.org/xml/ns/dbchangelog/dbchangelog-latest.xsd">
							<changeSet id="1" author="leader-election-tests">
								<sqlFile path="leader_election_test.sql" relativeToChangelogFile="true"/>
							</changeSet>
						</databaseChangeLog>
						""");
				return new String[] { "spring.liquibase.change-log=" + changelog.toUri(),
						"spring.liquibase.analytics-enabled=false" };
			}

		};

		private final Class<?> autoConfiguration;

		private final Class<?> initializerType;

		MigrationTool(Class<?> autoConfiguration, Class<?> initializerType) {
			this.autoConfiguration = autoConfiguration;
			this.initializerType = initializerType;
		}

		/**
		 * Write a migration that runs the given SQL.
		 * @param directory where to write it
		 * @param sql the statements
		 * @return the properties that make the tool run it
		 * @throws IOException if the migration cannot be written
		 */
		abstract String[] writeMigration(Path directory, String sql) throws IOException;

	}

	/**
	 * Records the names of the beans in the order they finish initializing, which is when
	 * a database initializer has run.
	 */
	static class InitializationOrder implements BeanPostProcessor {

		final List<String> beanNames = new CopyOnWriteArrayList<>();

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			this.beanNames.add(beanName);
			return bean;
		}

	}

}
