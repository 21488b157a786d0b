package io.github.dbleader.election.jdbc;

/**
 * Thrown by {@link LeaseTables} for a table name that breaks one of its rules: it says
 * which of the two names and what would be allowed, so that a caller that read the names
 * from somewhere (the Spring Boot properties) can name its own source in its report
 * without checking the rules a second time.
 */
public class InvalidTableNameException extends IllegalArgumentException {

	/** The names {@link LeaseTables} takes. */
	public enum Table {

		/** The lease table, after which the fence, nodes and pins tables are named. */
		LEASE,

		/** The candidates table. */
		CANDIDATE

	}

	private final Table table;

	private final String name;

	private final String allowed;

	InvalidTableNameException(Table table, String name, String message, String allowed) {
		super(message);
		this.table = table;
		this.name = name;
		this.allowed = allowed;
	}

	/**
	 * @return which name breaks the rule
	 */
	public Table table() {
		return this.table;
	}

	/**
	 * @return the name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * @return what would be allowed instead, in a few words
	 */
	public String allowed() {
		return this.allowed;
	}

}
