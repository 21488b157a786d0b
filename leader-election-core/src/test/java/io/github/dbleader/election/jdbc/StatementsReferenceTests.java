package io.github.dbleader.election.jdbc;

import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;

import io.github.dbleader.test.GeneratedPage;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code docs/reference/statements.md} generated from the statement catalog: fails
 * when the committed page differs from what {@link StatementsReference} renders, and
 * rewrites it instead with {@code -Dleader-election.docs.update=true}.
 */
class StatementsReferenceTests {

	private static final Path PAGE = Path.of("../docs/reference/statements.md");

	private static final Path SOURCES = Path.of("src/main/java/io/github/dbleader/election/jdbc");

	@Test
	void committedStatementsPageIsTheOneTheCatalogGenerates() throws Exception {
		String generated = new StatementsReference(SOURCES).render();
		GeneratedPage.check(PAGE, generated, "LeaseStatements, LockStatements and PinStatements",
				StatementsReference.REGENERATE);
	}

	@Test
	void everyStatementOfTheCatalogIsOnThePageAndItsLinesJoinToTheTextSent() throws Exception {
		String page = new StatementsReference(SOURCES).render();
		for (SqlDialect dialect : SqlDialect.values()) {
			LeaseStatements statements = new LeaseStatements(dialect, false, LeaseTables.defaults(),
					Duration.ofSeconds(1));
			everyStatementIsOnThePage(page, statements);
			everyStatementIsOnThePage(page, statements.locks);
		}
		everyStatementIsOnThePage(page, new PinStatements(LeaseTables.defaults()));
	}

	private static void everyStatementIsOnThePage(String page, Object statements) throws Exception {
		for (Field field : statements.getClass().getDeclaredFields()) {
			if (field.getType() != String.class && field.getType() != SqlTemplate.class) {
				continue;
			}
			assertThat(page).as("the page lists %s", field.getName()).contains("#### `" + field.getName() + "`");
			Object value = field.get(statements);
			if (value != null) {
				String sql = value.toString();
				assertThat(StatementsReference.joined(StatementsReference.lines(sql))).as(field.getName())
					.isEqualTo(sql);
			}
		}
	}

}
