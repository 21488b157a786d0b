package io.github.dbleader.election.jdbc;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import io.github.dbleader.election.partition.PartitionPins;
import org.springframework.dao.DuplicateKeyException;

/**
 * The pins of partition groups in the pins table ({@link LeaseTables#pinsTable()}). Plain
 * statements that run unchanged on every supported database ({@link PinStatements}), sent
 * through a {@link JdbcStore} with its data source and statement timeout: a pin is an
 * update, or an insert when the partition had no pin.
 */
public final class JdbcPartitionPins implements PartitionPins {

	private final JdbcStore store;

	/**
	 * Create the pins.
	 * @param store where their statements go; they need neither its platform nor its
	 * fenced work
	 */
	public JdbcPartitionPins(JdbcStore store) {
		this.store = Objects.requireNonNull(store, "store must not be null");
	}

	@Override
	public Map<Integer, String> pins(String group) {
		Map<Integer, String> pins = new HashMap<>();
		this.store.jdbc().query(this.store.pinStatements().select, (rs) -> {
			pins.put(rs.getInt("partition_number"), rs.getString("node_id"));
		}, group);
		return pins;
	}

	@Override
	public void pin(String group, int partition, String nodeId) {
		PinStatements statements = this.store.pinStatements();
		if (this.store.jdbc().update(statements.update, nodeId, group, partition) > 0) {
			return;
		}
		try {
			this.store.jdbc().update(statements.insert, group, partition, nodeId);
		}
		catch (DuplicateKeyException ex) {
			// Pinned meanwhile by another operator: the last one wins.
			this.store.jdbc().update(statements.update, nodeId, group, partition);
		}
	}

	@Override
	public boolean unpin(String group, int partition) {
		return this.store.jdbc().update(this.store.pinStatements().delete, group, partition) > 0;
	}

}
