package io.github.dbleader.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The fenced writes of the sample's job: one row per run with node, term, start and end
 * on the database clock. Two properties are read from them:
 * <ul>
 * <li>overlap: runs of different holders (node and term) whose intervals intersect. Each
 * run is a fenced transaction, so any overlap means two writers held the fence at once;
 * <li>stale writes: a run of a term that finished (its insert ran) after a newer term was
 * already committed, as shown by the lease row seen with that newer term, or by a run of
 * that newer term that had already started. Both instants come after the newer term's
 * commit, so neither can accuse a run that committed in time.
 * </ul>
 */
final class JobRuns {

	private JobRuns() {
	}

	/**
	 * Read the runs that finished at or after a database time.
	 * @param database the database
	 * @param fromDbMillis database time
	 * @return the runs ordered by start
	 */
	static List<Run> since(FaultDatabase database, long fromDbMillis) {
		return since(database, FaultDatabase.JOB_RUNS_TABLE, fromDbMillis);
	}

	/**
	 * Read the runs of a table that finished at or after a database time.
	 * @param database the database
	 * @param table the table with the sample's columns
	 * @param fromDbMillis database time
	 * @return the runs ordered by start
	 */
	static List<Run> since(FaultDatabase database, String table, long fromDbMillis) {
		List<Run> runs = new ArrayList<>();
		try (Connection connection = database.connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT node_id, term, started_at, finished_at FROM " + table
							+ " WHERE finished_at >= ? ORDER BY started_at, finished_at")) {
			statement.setLong(1, fromDbMillis);
			try (ResultSet result = statement.executeQuery()) {
				while (result.next()) {
					runs.add(new Run(result.getString(1), result.getLong(2), result.getLong(3), result.getLong(4)));
				}
			}
		}
		catch (SQLException ex) {
			// The table may not exist before the first run of any node.
			if (!FaultDatabase.isMissingTable(ex)) {
				throw new IllegalStateException("Could not read " + table, ex);
			}
		}
		return runs;
	}

	/**
	 * The first run that started at or after a database time and matches.
	 * @param database the database
	 * @param fromDbMillis database time
	 * @param which condition on the run
	 * @return the run, if any
	 */
	static Optional<Run> first(FaultDatabase database, long fromDbMillis, Predicate<Run> which) {
		return since(database, fromDbMillis).stream()
			.filter((run) -> run.startedAt() >= fromDbMillis)
			.filter(which)
			.findFirst();
	}

	/**
	 * Every pair of runs of different holders that overlap.
	 * @param runs runs ordered by start
	 * @return the overlapping pairs
	 */
	static List<Overlap> overlaps(List<Run> runs) {
		List<Overlap> overlaps = new ArrayList<>();
		for (int i = 0; i < runs.size(); i++) {
			Run first = runs.get(i);
			for (int j = i + 1; j < runs.size() && runs.get(j).startedAt() < first.finishedAt(); j++) {
				Run second = runs.get(j);
				if (!first.sameHolder(second)) {
					overlaps.add(new Overlap(first, second,
							Math.min(first.finishedAt(), second.finishedAt()) - second.startedAt()));
				}
			}
		}
		return overlaps;
	}

	/**
	 * The runs of a term that finished after a newer term was committed.
	 * @param runs runs ordered by start
	 * @param terms the first sighting of each term by the {@link LeaseMonitor}
	 * @return the stale writes
	 */
	static List<Run> staleWrites(List<Run> runs, List<LeaseMonitor.Sighting> terms) {
		List<Run> stale = new ArrayList<>();
		for (Run run : runs) {
			boolean afterNewerTermSeen = terms.stream()
				.anyMatch((term) -> term.term() > run.term() && term.seenAt() < run.finishedAt());
			boolean afterNewerTermRan = runs.stream()
				.anyMatch((other) -> other.term() > run.term() && other.startedAt() < run.finishedAt());
			if (afterNewerTermSeen || afterNewerTermRan) {
				stale.add(run);
			}
		}
		return stale;
	}

	/**
	 * One job run.
	 *
	 * @param nodeId the node
	 * @param term the term it ran under
	 * @param startedAt database time of its start, inside the fence
	 * @param finishedAt database time of its insert, inside the fence
	 */
	record Run(String nodeId, long term, long startedAt, long finishedAt) {

		boolean sameHolder(Run other) {
			return this.nodeId.equals(other.nodeId) && this.term == other.term;
		}

	}

	/**
	 * Two runs of different holders that overlap.
	 *
	 * @param first the earlier run
	 * @param second the later run
	 * @param millis length of the overlap
	 */
	record Overlap(Run first, Run second, long millis) {
	}

}
