package io.github.dbleader.election.jdbc;

/**
 * Every statement that a node sends for the pins of its partition groups
 * ({@link JdbcPartitionPins}), in the pins table ({@link LeaseTables#pinsTable()}): plain
 * statements, the same on every supported database and kind of server, so rendered once
 * per store from the tables alone ({@link JdbcStore#pinStatements()}). Each statement is
 * one field; {@code docs/reference/statements.md} lists them, generated from this class
 * ({@code StatementsReferenceTests}).
 */
final class PinStatements {

	// ---- Partition pins

	/**
	 * The pins of a partition group, each partition's number with its node id; parameter:
	 * the group.
	 */
	final String select;

	/**
	 * Moves a partition's pin to a node; parameters: the node id, the group and the
	 * partition's number.
	 */
	final String update;

	/**
	 * Pins a partition that had no pin to a node; parameters: the group, the partition's
	 * number and the node id.
	 */
	final String insert;

	/**
	 * Removes a partition's pin; parameters: the group and the partition's number.
	 */
	final String delete;

	/**
	 * Render the statements.
	 * @param tables the tables
	 */
	PinStatements(LeaseTables tables) {
		String pins = tables.pinsTable();
		this.select = "SELECT partition_number, node_id FROM " + pins + " WHERE group_name = ?";
		this.update = "UPDATE " + pins + " SET node_id = ? WHERE group_name = ? AND partition_number = ?";
		this.insert = "INSERT INTO " + pins + " (group_name, partition_number, node_id) VALUES (?, ?, ?)";
		this.delete = "DELETE FROM " + pins + " WHERE group_name = ? AND partition_number = ?";
	}

}
