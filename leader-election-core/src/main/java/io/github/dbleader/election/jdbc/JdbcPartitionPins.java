package io.github.dbleader.election.jdbc;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import javax.sql.DataSource;

import io.github.dbleader.election.partition.PartitionPins;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The pins of partition groups in the pins table ({@link LeaseTables#pinsTable()}). Plain
 * statements that run unchanged on every supported database: a pin is an update, or an
 * insert when the partition had no pin.
 */
public final class JdbcPartitionPins implements PartitionPins {

	private final JdbcTemplate jdbc;

	private final String select;

	private final String update;

	private final String insert;

	private final String delete;

	/**
	 * Create the store.
	 * @param dataSource data source of the election's statements
	 * @param tables table names
	 * @param statementTimeout limit of every statement
	 */
	public JdbcPartitionPins(DataSource dataSource, LeaseTables tables, Duration statementTimeout) {
		Objects.requireNonNull(dataSource, "dataSource must not be null");
		Objects.requireNonNull(statementTimeout, "statementTimeout must not be null");
		this.jdbc = new JdbcTemplate(new NetworkTimeoutDataSource(dataSource, statementTimeout));
		this.jdbc.setQueryTimeout((int) Math.max(1, (statementTimeout.toMillis() + 999) / 1000));
		String pins = tables.pinsTable();
		this.select = "SELECT partition_number, node_id FROM " + pins + " WHERE group_name = ?";
		this.update = "UPDATE " + pins + " SET node_id = ? WHERE group_name = ? AND partition_number = ?";
		this.insert = "INSERT INTO " + pins + " (group_name, partition_number, node_id) VALUES (?, ?, ?)";
		this.delete = "DELETE FROM " + pins + " WHERE group_name = ? AND partition_number = ?";
	}

	@Override
	public Map<Integer, String> pins(String group) {
		Map<Integer, String> pins = new HashMap<>();
		this.jdbc.query(this.select, (rs) -> {
			pins.put(rs.getInt("partition_number"), rs.getString("node_id"));
		}, group);
		return pins;
	}

	@Override
	public void pin(String group, int partition, String nodeId) {
		if (this.jdbc.update(this.update, nodeId, group, partition) > 0) {
			return;
		}
		try {
			this.jdbc.update(this.insert, group, partition, nodeId);
		}
		catch (DuplicateKeyException ex) {
			// Pinned meanwhile by another operator: the last one wins.
			this.jdbc.update(this.update, nodeId, group, partition);
		}
	}

	@Override
	public boolean unpin(String group, int partition) {
		return this.jdbc.update(this.delete, group, partition) > 0;
	}

}
