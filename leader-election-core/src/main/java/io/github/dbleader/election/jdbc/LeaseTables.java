package io.github.dbleader.election.jdbc;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Names of the lease table and the candidates table; the fence, nodes and pins tables are
 * named after the lease table ({@link #fenceTable()}, {@link #nodesTable()},
 * {@link #pinsTable()}). Only plain identifiers are accepted (letters, digits and
 * underscores, not starting with a digit, at most 63 characters, PostgreSQL's limit,
 * beyond which it cuts a name to another table's, and at most 57
 * ({@link #MAX_LEASE_TABLE_LENGTH}) for the lease table so that its fence table fits),
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

	/** Appended to the lease table's name to name the fence table. */
	public static final String FENCE_TABLE_SUFFIX = "_fence";

	/**
	 * Appended to the lease table's name to name the index of the candidates table by
	 * node, which the batched heartbeat uses (index names are per schema on PostgreSQL
	 * and H2).
	 */
	public static final String NODE_INDEX_SUFFIX = "_node";

	/**
	 * Appended to the lease table's name to name its index by the time each row last
	 * changed, which the heartbeat's read of what changed since its last read uses.
	 */
	public static final String DELTA_INDEX_SUFFIX = "_delta";

	/**
	 * Appended to the lease table's name to name the nodes table: one row per running
	 * node, which its heartbeat refreshes.
	 */
	public static final String NODES_TABLE_SUFFIX = "_nodes";

	/**
	 * Appended to the lease table's name to name the pins table: partitions of partition
	 * groups that an operator pinned to a node.
	 */
	public static final String PINS_TABLE_SUFFIX = "_pins";

	/** Longest lease table name. */
	public static final int MAX_LEASE_TABLE_LENGTH = 63 - FENCE_TABLE_SUFFIX.length();

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

	/**
	 * Create validated names.
	 * @throws InvalidTableNameException if a name is not a plain identifier, the lease
	 * table's name is too long for its fence table's, or the candidates table would take
	 * the name of another
	 */
	public LeaseTables {
		validate(InvalidTableNameException.Table.LEASE, "lease table", leaseTable);
		validate(InvalidTableNameException.Table.CANDIDATE, "candidate table", candidateTable);
		if (leaseTable.length() > MAX_LEASE_TABLE_LENGTH) {
			throw new InvalidTableNameException(InvalidTableNameException.Table.LEASE, leaseTable,
					"Invalid lease table name '" + leaseTable + "': at most " + MAX_LEASE_TABLE_LENGTH
							+ " characters, so that its fence table '" + leaseTable + FENCE_TABLE_SUFFIX
							+ "' is a valid name too",
					"at most " + MAX_LEASE_TABLE_LENGTH + " letters, digits or underscores");
		}
		String others = "a plain identifier other than '" + leaseTable + "', '" + leaseTable + NODES_TABLE_SUFFIX
				+ "', '" + leaseTable + PINS_TABLE_SUFFIX + "' and '" + leaseTable + FENCE_TABLE_SUFFIX + "'";
		if (leaseTable.equalsIgnoreCase(candidateTable)) {
			throw new InvalidTableNameException(InvalidTableNameException.Table.CANDIDATE, candidateTable,
					"lease table and candidate table must differ but both are '" + leaseTable + "'", others);
		}
		for (String suffix : new String[] { NODES_TABLE_SUFFIX, PINS_TABLE_SUFFIX, FENCE_TABLE_SUFFIX }) {
			if (candidateTable.equalsIgnoreCase(leaseTable + suffix)) {
				throw new InvalidTableNameException(InvalidTableNameException.Table.CANDIDATE, candidateTable,
						"candidate table '" + candidateTable + "' must differ from the " + suffix.substring(1)
								+ " table of lease table '" + leaseTable + "'",
						others);
			}
		}
	}

	/**
	 * The fence table: the holder of each lease, kept apart from the lease row that every
	 * renewal writes, so that fenced transactions can lock it without holding up
	 * renewals.
	 * @return the lease table's name followed by {@value #FENCE_TABLE_SUFFIX}
	 */
	public String fenceTable() {
		return this.leaseTable + FENCE_TABLE_SUFFIX;
	}

	/**
	 * The nodes table: one row per node id with the running instance that uses it and
	 * when it was last seen. A node's heartbeat refreshes this one row, whatever the
	 * number of its elections.
	 * @return the lease table's name followed by {@value #NODES_TABLE_SUFFIX}
	 */
	public String nodesTable() {
		return this.leaseTable + NODES_TABLE_SUFFIX;
	}

	/**
	 * The table of pinned partitions: one row per partition of a group that an operator
	 * pinned to a node.
	 * @return the lease table's name followed by {@value #PINS_TABLE_SUFFIX}
	 */
	public String pinsTable() {
		return this.leaseTable + PINS_TABLE_SUFFIX;
	}

	/**
	 * Every table of the election, in an order in which they can be dropped.
	 * @return the lease, candidates, fence, nodes and pins tables
	 */
	public List<String> allTables() {
		return List.of(this.leaseTable, this.candidateTable, fenceTable(), nodesTable(), pinsTable());
	}

	/**
	 * The index of the candidates table by node id and instance, which lets one statement
	 * refresh or read all of a node's candidacies.
	 * @return the lease table's name followed by {@value #NODE_INDEX_SUFFIX}
	 */
	public String nodeIndex() {
		return this.leaseTable + NODE_INDEX_SUFFIX;
	}

	/**
	 * The index of the lease table by the time each row last changed
	 * ({@code changed_at}), which lets the heartbeat read only the rows that changed
	 * since its last read.
	 * @return the lease table's name followed by {@value #DELTA_INDEX_SUFFIX}
	 */
	public String deltaIndex() {
		return this.leaseTable + DELTA_INDEX_SUFFIX;
	}

	/**
	 * Whether a name is accepted as a table name.
	 * @param name the name
	 * @return {@code true} if it is a plain identifier of at most 63 characters
	 */
	public static boolean isValidName(String name) {
		return name != null && IDENTIFIER.matcher(name).matches();
	}

	/**
	 * @return the default names
	 */
	public static LeaseTables defaults() {
		return new LeaseTables(DEFAULT_LEASE_TABLE, DEFAULT_CANDIDATE_TABLE);
	}

	private static void validate(InvalidTableNameException.Table table, String what, String name) {
		if (!isValidName(name)) {
			throw new InvalidTableNameException(table, name,
					"Invalid " + what + " name '" + name
							+ "': use 1 to 63 letters, digits or underscores, not starting with a digit",
					"1 to 63 letters, digits or underscores, not starting with a digit");
		}
	}

}
