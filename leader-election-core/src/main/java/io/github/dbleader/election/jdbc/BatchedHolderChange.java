package io.github.dbleader.election.jdbc;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.dbleader.election.LeaseState;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A change of holder of many leases in one transaction, with their fence rows (I5): a
 * take-over, hand-over, yield or re-acquire of each listed lease under exactly the
 * conditions of the single-row statement, with the version or term this node observed for
 * that lease ({@link Change}; I3, I4, I6 per election):
 * <ol>
 * <li>lock the listed lease rows that still meet the conditions, by key, and learn which
 * they are ({@code SELECT ... FOR UPDATE}): from here on no other statement can change
 * them, so what follows knows exactly which rows it changes (a row another node handed to
 * this one meanwhile is not among them: this node reacquires such a row);
 * <li>lock their fence rows, skipping those a fenced transaction holds
 * ({@code FOR UPDATE SKIP LOCKED}): those leases are left as they are, for a later round;
 * <li>update the lease rows so locked, under the same conditions again (a count that
 * differs rolls everything back: nothing changed);
 * <li>copy holder and term to their fence rows (a missing fence row is written anew);
 * <li>read the rows changed, as they now are, in the same transaction.
 * </ol>
 *
 * <p>
 * Why fence rows are skipped rather than waited for: a change of holder must wait for the
 * fenced transactions of the deposed holder (I5), and one such transaction may stay open
 * until the server drops its session, about a lease. A single-row change just waits, up
 * to its statement timeout, and tries again next round; a batch that waited would fail
 * every round, and hold up every other election in it, for as long as that one
 * transaction stays open. Skipping leaves exactly the fenced elections unchanged until
 * their fenced transaction ends, and changes the rest at once. Lease rows first and fence
 * rows second, as every single-row change of holder locks them, each set in key order, so
 * that two nodes whose batches overlap wait for each other rather than deadlock.
 *
 * <p>
 * New leases are created in batches as well ({@link #create}), all of a batch or none.
 */
final class BatchedHolderChange {

	private final LeaseStatements statements;

	/**
	 * Create the changes.
	 * @param statements the statements of the server that answers
	 */
	BatchedHolderChange(LeaseStatements statements) {
		this.statements = statements;
	}

	/**
	 * Create the listed leases in the current transaction, with this node as their first
	 * leader and their fence rows: one insert of all the rows, so that a lease another
	 * node created first fails it (the caller rolls back: nothing created), then one
	 * write of their fence rows and the read of the rows created.
	 * @param jdbc the election's statements, in the transaction
	 * @param nodeId this node
	 * @param instanceId the running instance whose session the leases live on, or
	 * {@code null} for none
	 * @param elections the elections, in the order every node inserts them in (so that
	 * two nodes whose batches overlap wait for each other rather than deadlock)
	 * @param leaseMillis the lease in milliseconds
	 * @return the leases created, as they are now
	 * @throws org.springframework.dao.DuplicateKeyException if one of them existed
	 */
	List<LeaseState> create(JdbcTemplate jdbc, String nodeId, @Nullable String instanceId, List<String> elections,
			long leaseMillis) {
		List<Object> args = new ArrayList<>(elections.size() * 4);
		for (String election : elections) {
			args.add(election);
			args.add(nodeId);
			args.add(leaseMillis);
			args.add(instanceId);
		}
		jdbc.update(this.statements.createAll.render(elections.size()), args.toArray());
		jdbc.update(this.statements.writeFences.render(elections.size()), elections.toArray());
		return jdbc.query(this.statements.findAll.render(elections.size()), (rs, row) -> LeaseRows.mapElection(rs),
				elections.toArray());
	}

	/**
	 * Change the listed leases in the current transaction.
	 * @param jdbc the election's statements, in the transaction
	 * @param change what to change, under which conditions
	 * @param rows by election, in key order: the version or term of each that the change
	 * is conditional on
	 * @return the leases changed, as they are now
	 * @throws NothingChanged if the rows changed between the lock and the update (the
	 * caller rolls back)
	 */
	List<LeaseState> run(JdbcTemplate jdbc, Change change, Map<String, Long> rows) {
		List<String> meeting = jdbc.queryForList(change.lock().render(rows.size()), String.class,
				change.conditionArgs(List.copyOf(rows.keySet()), rows).toArray());
		if (meeting.isEmpty()) {
			return List.of();
		}
		List<String> free = new ArrayList<>(
				jdbc.queryForList(this.statements.lockFences.render(meeting.size()), String.class, meeting.toArray()));
		List<String> missingFences = missing(jdbc, meeting, free);
		free.addAll(missingFences);
		if (free.isEmpty()) {
			return List.of();
		}
		List<Object> args = new ArrayList<>(change.assignmentArgs());
		args.addAll(change.conditionArgs(free, rows));
		int changed = jdbc.update(change.update().render(free.size()), args.toArray());
		if (changed != free.size()) {
			throw new NothingChanged();
		}
		jdbc.update(this.statements.updateFences.render(free.size()), free.toArray());
		for (String election : missingFences) {
			jdbc.update(this.statements.writeFence, election);
		}
		return jdbc.query(this.statements.findAll.render(free.size()), (rs, row) -> LeaseRows.mapElection(rs),
				free.toArray());
	}

	/** Of the elections whose fence rows were not locked, those that have none. */
	private List<String> missing(JdbcTemplate jdbc, List<String> meeting, List<String> locked) {
		Set<String> unlocked = new HashSet<>(meeting);
		locked.forEach(unlocked::remove);
		if (unlocked.isEmpty()) {
			return List.of();
		}
		List<String> listed = meeting.stream().filter(unlocked::contains).toList();
		Set<String> existing = new HashSet<>(jdbc.queryForList(this.statements.existingFences.render(listed.size()),
				String.class, listed.toArray()));
		return listed.stream().filter((election) -> !existing.contains(election)).toList();
	}

	/**
	 * What one batch changes: the statement that locks the rows still meeting the
	 * conditions and the update of those rows, from {@link LeaseStatements}, whose
	 * conditions list an {@code (election_name, <column>)} pair per row.
	 *
	 * @param lock the lock of the rows, parameters: the names, then the conditions'
	 * @param update the update, parameters: the assignments', the names, then the
	 * conditions'
	 * @param assignmentArgs parameters of the update's assignments
	 * @param before parameters of the conditions before the pairs
	 * @param after parameters of the conditions after the pairs
	 */
	record Change(SqlTemplate lock, SqlTemplate update, List<Object> assignmentArgs, List<Object> before,
			List<Object> after) {

		/** The listed names, then the parameters of the conditions for them. */
		List<Object> conditionArgs(List<String> elections, Map<String, Long> rows) {
			List<Object> args = new ArrayList<>(elections.size() * 3 + this.before.size() + this.after.size());
			args.addAll(elections);
			args.addAll(this.before);
			for (String election : elections) {
				args.add(election);
				args.add(rows.get(election));
			}
			args.addAll(this.after);
			return args;
		}

	}

	/**
	 * The rows changed between the lock and the update: the transaction is rolled back,
	 * nothing changed.
	 */
	static final class NothingChanged extends RuntimeException {

		private static final long serialVersionUID = 1L;

		NothingChanged() {
			super("Rows changed between their lock and their update", null, false, false);
		}

	}

}
