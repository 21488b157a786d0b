package io.github.dbleader.election.jdbc;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.dbleader.election.ElectionSettings;
import org.jspecify.annotations.Nullable;

/**
 * Renders {@code docs/reference/statements.md} from the statement catalogs
 * ({@link LeaseStatements} with its {@link LockStatements}, and {@link PinStatements}):
 * every statement of each catalog for each kind of server, in the order and sections of
 * its source, each with the description of its field's Javadoc, so that the page lists
 * what a node sends and cannot drift from the code.
 */
final class StatementsReference {

	static final String REGENERATE = "./mvnw -B -q test -pl leader-election-core -am -Dtest=StatementsReferenceTests"
			+ " -Dsurefire.failIfNoSpecifiedTests=false -Dleader-election.docs.update=true";

	/** The catalogs' classes, whose sources the page follows, in the page's order. */
	static final List<Class<?>> CATALOGS = List.of(LeaseStatements.class, LockStatements.class, PinStatements.class);

	/** A section comment or a statement's field with its Javadoc. */
	private static final Pattern ENTRY = Pattern
		.compile("//\\s*----\\s*(?<section>[^\\n]+)|/\\*\\*(?<doc>(?:(?!\\*/).)*)\\*/\\s*final\\s+(?:@Nullable\\s+)?"
				+ "(?:String|SqlTemplate)\\s+(?<field>\\w+);", Pattern.DOTALL);

	private static final Pattern JAVADOC_TAG = Pattern.compile("\\{@(?:code|link|linkplain|literal|value) #?([^}]*)}");

	/**
	 * Where a statement is broken into lines for reading: before these, outside
	 * parentheses.
	 */
	private static final List<String> BREAKS = List.of(" FROM ", " WHERE ", " SET ", " UNION ALL ", " ORDER BY ",
			" LIMIT ", " ON DUPLICATE KEY ", " ON CONFLICT ", " FOR UPDATE", " LOCK IN SHARE MODE", " FOR SHARE",
			" AND ", " VALUES ", " KEY (", " SELECT ");

	/** Each catalog's source, by class. */
	private final Map<Class<?>, String> sources = new LinkedHashMap<>();

	private final Duration statementTimeout = ElectionSettings.defaults().statementTimeout();

	/**
	 * Read the catalogs' sources.
	 * @param directory the directory of the catalogs' sources
	 * @throws IOException if a source cannot be read
	 */
	StatementsReference(Path directory) throws IOException {
		for (Class<?> catalog : CATALOGS) {
			this.sources.put(catalog, Files.readString(directory.resolve(catalog.getSimpleName() + ".java")));
		}
	}

	String render() throws ReflectiveOperationException {
		LeaseTables tables = LeaseTables.defaults();
		StringBuilder page = new StringBuilder();
		page.append("# SQL statements\n\n");
		page.append(
				"<!-- Generated from leader-election-core's LeaseStatements, LockStatements and PinStatements by\n");
		page.append("     StatementsReferenceTests: do not edit. After changing a statement, regenerate with\n");
		page.append("     ").append(REGENERATE).append(" -->\n\n");
		page.append("Every statement that a node sends for its elections, its cluster locks and its partition\n");
		page.append("groups' pins, for each database, as the statement catalogs of\n");
		page.append("`io.github.dbleader.election.jdbc` render them (`LeaseStatements` for the elections,\n");
		page.append("`LockStatements` for the cluster locks, which send the elections' fence and write of the\n");
		page.append("fence row too, and `PinStatements` for the pins, the same on every database) with the\n");
		page.append("default table names (`")
			.append(tables.leaseTable())
			.append("`, `")
			.append(tables.candidateTable());
		page.append("` and the\n");
		page.append("tables named after the lease table) and the default statement timeout (half the default\n");
		page.append("renew interval, ")
			.append(this.statementTimeout.toMillis())
			.append(" ms, which only the bounds on the waits for a fence\n");
		page.append("row show). The build fails when this page differs from the catalogs. The session limits\n");
		page.append("around a fenced transaction (`SqlDialect`) are not listed; the fence itself is.\n\n");
		page.append("Each statement is one line; it is shown broken before its main clauses, outside\n");
		page.append("parentheses, for reading: joined with single spaces, the lines give the text sent.\n");
		page.append("Parameters are positional (`?`) unless named (`:election`); the description names them in\n");
		page.append("order. A statement that lists a variable number of rows is a template: each slot\n");
		page.append("`{name}` is expanded for the rows that a statement lists, its unit once per row, joined\n");
		page.append("by its separator, as given below the statement.\n");
		page.append("Why each statement looks as it does (keys, locks, times) is in the comments of the\n");
		page.append("catalogs and in [the invariants](../explanation/invariants.md).\n");
		LeaseStatements mysql = new LeaseStatements(SqlDialect.MYSQL, false, tables, this.statementTimeout);
		section(page, "MySQL and MariaDB", mysql, null);
		section(page, "MariaDB Galera", new LeaseStatements(SqlDialect.MYSQL, true, tables, this.statementTimeout),
				mysql);
		section(page, "PostgreSQL", new LeaseStatements(SqlDialect.POSTGRESQL, false, tables, this.statementTimeout),
				null);
		section(page, "H2", new LeaseStatements(SqlDialect.H2, false, tables, this.statementTimeout), null);
		page.append("\n## Every database\n");
		entries(page, "Every database", new PinStatements(tables), null);
		return page.toString();
	}

	/**
	 * One database's statements, the elections' and the cluster locks'; where
	 * {@code differingFrom} is given, only those whose text differs from its.
	 */
	private void section(StringBuilder page, String database, LeaseStatements statements,
			@Nullable LeaseStatements differingFrom) throws ReflectiveOperationException {
		page.append("\n## ").append(database).append("\n");
		if (differingFrom != null) {
			page.append("\nOn a node of a MariaDB Galera cluster (found out at the first statement), the statements\n");
			page.append("that record or compare the server's identity use the cluster's, and the reads that decide\n");
			page.append("are causal; these differ from the MySQL and MariaDB ones, the others are the same.\n");
		}
		entries(page, database, statements, differingFrom);
		entries(page, database, statements.locks, (differingFrom != null) ? differingFrom.locks : null);
	}

	/**
	 * One catalog's statements under their sections; where {@code differingFrom} is
	 * given, only those whose text differs from its.
	 */
	private void entries(StringBuilder page, String database, Object statements, @Nullable Object differingFrom)
			throws ReflectiveOperationException {
		Class<?> catalog = statements.getClass();
		Matcher entry = ENTRY.matcher(this.sources.get(catalog));
		String pendingSection = null;
		while (entry.find()) {
			if (entry.group("section") != null) {
				pendingSection = entry.group("section").trim();
				continue;
			}
			Field field = catalog.getDeclaredField(entry.group("field"));
			Object value = field.get(statements);
			if (differingFrom != null
					&& Objects.equals(String.valueOf(value), String.valueOf(field.get(differingFrom)))) {
				continue;
			}
			if (pendingSection != null) {
				page.append("\n### ").append(database).append(": ").append(pendingSection).append("\n");
				pendingSection = null;
			}
			page.append("\n#### `")
				.append(field.getName())
				.append("`\n\n")
				.append(describe(entry.group("doc")))
				.append("\n");
			if (value == null) {
				page.append("\nNot sent on this database.\n");
			}
			else if (value instanceof String sql && sql.isEmpty()) {
				page.append("\nNone on this database.\n");
			}
			else {
				page.append("\n```sql\n").append(lines(value.toString())).append("\n```\n");
			}
			if (value instanceof SqlTemplate template) {
				page.append('\n');
				for (SqlTemplate.Slot slot : template.slots()) {
					page.append("- `{")
						.append(slot.name())
						.append("}`: `")
						.append(slot.unit())
						.append("` per row, joined by `")
						.append(slot.separator())
						.append("`\n");
				}
			}
		}
	}

	/** A field's Javadoc as one paragraph of Markdown. */
	private static String describe(String javadoc) {
		String text = javadoc.replaceAll("(?m)^\\s*\\*\\s?", " ").replaceAll("\\s+", " ").trim();
		return JAVADOC_TAG.matcher(text).replaceAll((tag) -> Matcher.quoteReplacement("`" + tag.group(1).trim() + "`"));
	}

	/**
	 * A statement broken before its main clauses where they are outside parentheses and
	 * quotes.
	 */
	static String lines(String sql) {
		StringBuilder out = new StringBuilder(sql.length() + 64);
		int depth = 0;
		boolean quoted = false;
		for (int i = 0; i < sql.length(); i++) {
			char c = sql.charAt(i);
			if (c == '\'') {
				quoted = !quoted;
			}
			else if (!quoted && c == '(') {
				depth++;
			}
			else if (!quoted && c == ')') {
				depth--;
			}
			if (c == ' ' && depth == 0 && !quoted && i > 0 && breaksAt(sql, i)) {
				out.append('\n');
				continue;
			}
			out.append(c);
		}
		return out.toString();
	}

	private static boolean breaksAt(String sql, int at) {
		if (sql.startsWith("DELETE", at - "DELETE".length())) {
			return false;
		}
		for (String keyword : BREAKS) {
			if (sql.startsWith(keyword, at)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The statements of the lines that {@link #lines} broke them into, joined again.
	 * @param lines the lines
	 * @return the statement
	 */
	static String joined(String lines) {
		return String.join(" ", new ArrayList<>(lines.lines().toList()));
	}

}
