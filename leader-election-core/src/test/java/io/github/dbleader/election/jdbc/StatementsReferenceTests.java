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

	private static final Path SOURCE = Path.of("src/main/java/io/github/dbleader/election/jdbc/LeaseStatements.java");

	@Test
	void committedStatementsPageIsTheOneTheCatalogGenerates() throws Exception {
		String generated = new StatementsReference(SOURCE).render();
		GeneratedPage.check(PAGE, generated, "LeaseStatements", StatementsReference.REGENERATE);
	}

	@Test
	void everyStatementOfTheCatalogIsOnThePageAndItsLinesJoinToTheTextSent() throws Exception {
		String page = new StatementsReference(SOURCE).render();
		for (SqlDialect dialect : SqlDialect.values()) {
			LeaseStatements statements = new LeaseStatements(dialect, false, LeaseTables.defaults(),
					Duration.ofSeconds(1));
			for (Field field : LeaseStatements.class.getDeclaredFields()) {
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

}
