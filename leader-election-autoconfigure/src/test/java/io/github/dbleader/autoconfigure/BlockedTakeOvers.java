package io.github.dbleader.autoconfigure;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A round that fails a change every round while the database answers: an expired lease of
 * election {@code blocked}, held by a node that is gone, which a constraint keeps from
 * changing holder, so that a take-over of it fails every round once a node has watched it
 * for a lease. (A lease that cannot be created is refused on its own, at WARN, and fails
 * no round: the other elections of its batch go on.)
 */
public final class BlockedTakeOvers {

	private BlockedTakeOvers() {
	}

	/**
	 * Write the lease and the constraint, in the default tables.
	 * @param dataSource the application's database
	 */
	public static void block(DataSource dataSource) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.update("INSERT INTO leader_election_lease (election_name, leader_id, term, version, acquired_at, "
				+ "renewed_at, expires_at) VALUES ('blocked', 'gone', 1, 1, 0, 0, 0)");
		jdbc.execute("ALTER TABLE leader_election_lease ADD CONSTRAINT no_blocked "
				+ "CHECK (election_name <> 'blocked' OR leader_id = 'gone')");
	}

}
