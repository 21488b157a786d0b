package io.github.dbleader.election.jdbc;

import java.util.regex.Pattern;

/**
 * Names of the lease table and the candidates table. Only plain identifiers are accepted
 * (letters, digits and underscores, not starting with a digit, at most 64 characters),
 * since the names are written into SQL.
 *
 * @param leaseTable lease table, default {@code leader_election_lease}
 * @param candidateTable candidates table, default {@code leader_election_candidate}
 */
public record LeaseTables(String leaseTable, String candidateTable) {

	/** Default lease table name. */
	public static final String DEFAULT_LEASE_TABLE = "leader_election_lease";

	/** Default candidates table name. */
	public static final String DEFAULT_CANDIDATE_TABLE = "leader_election_candidate";

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");

	/**
	 * Create validated names.
	 * @throws IllegalArgumentException if a name is not a plain identifier
	 */
	public LeaseTables {
		validate("lease table", leaseTable);
		validate("candidate table", candidateTable);
		if (leaseTable.equalsIgnoreCase(candidateTable)) {
			throw new IllegalArgumentException("lease table and candidate table must differ but both are '"
					+ leaseTable + "'");
		}
	}

	/**
	 * Whether a name is accepted as a table name.
	 * @param name the name
	 * @return {@code true} if it is a plain identifier of at most 64 characters
	 */
	public static boolean isValidName(String name) {
		return name != null && IDENTIFIER.matcher(name).matches();
	}

	/** @return the default names */
	public static LeaseTables defaults() {
		return new LeaseTables(DEFAULT_LEASE_TABLE, DEFAULT_CANDIDATE_TABLE);
	}

	private static void validate(String what, String name) {
		if (!isValidName(name)) {
			throw new IllegalArgumentException("Invalid " + what + " name '" + name
					+ "': use 1 to 64 letters, digits or underscores, not starting with a digit");
		}
	}

}
