package io.github.dbleader.election.jdbc;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.JdbcTemplate;

import static io.github.dbleader.election.jdbc.FencedTransactionTemplate.inTransaction;

/**
 * Deletes what stayed unused for a while: node rows with their candidacies, and leases
 * with their fence rows, each found by a plain read and deleted by key. Lock rows are
 * never purged. Only the heartbeat thread purges.
 */
final class Purges {

	private final JdbcStore store;

	/** Where the next purge's slice of lease rows starts, after this key. */
	private volatile String purgeFrom = "";

	/**
	 * The node rows the last purge found stale, with their versions: the next purge
	 * deletes those still at the same version.
	 */
	private volatile Map<String, Long> staleAtLastPurge = Map.of();

	Purges(JdbcStore store) {
		this.store = store;
	}

	/**
	 * Delete what stayed unused for {@code maxAge}: at most
	 * {@value LeaseStatements#PURGED_PER_ROUND} node rows with their candidacies and as
	 * many leases with their fence rows per call, each by key; the rest is left to later
	 * calls. The leases are looked for in the next slice of
	 * {@value LeaseStatements#PURGE_SLICE} lease rows in key order, the slices going
	 * round the table call after call.
	 * @param maxAge how long a row stays unused before it is deleted
	 */
	void purge(Duration maxAge) {
		LeaseStatements statements = this.store.platformStatements();
		JdbcTemplate jdbc = this.store.jdbc();
		long millis = maxAge.toMillis();
		Map<String, Long> stale = new HashMap<>();
		jdbc.query(statements.staleNodes, (rs) -> {
			stale.put(rs.getString(1), rs.getLong(2));
		}, millis);
		stale.forEach((node, version) -> {
			if (version.equals(this.staleAtLastPurge.get(node))) {
				inTransaction(this.store.transactions(),
						() -> (jdbc.update(statements.purgeNode, node, version, millis) == 1)
								&& jdbc.update(statements.purgeCandidacies, node) >= 0);
			}
		});
		this.staleAtLastPurge = stale;
		// A fenced transaction of a deleted lease could only fail its check; nothing else
		// reads a fence row without its lease.
		String from = this.purgeFrom;
		List<String> end = jdbc.queryForList(statements.purgeSliceEnd, String.class, from);
		List<String> unused = end.isEmpty()
				? jdbc.queryForList(statements.unusedLeasesToTheEnd, String.class, from, millis)
				: jdbc.queryForList(statements.unusedLeases, String.class, from, millis, end.get(0));
		for (String election : unused) {
			inTransaction(this.store.transactions(), () -> (jdbc.update(statements.purgeLease, election, millis) == 1)
					&& jdbc.update(statements.purgeFence, election) >= 0);
		}
		// A slice with more unused rows than one purge deletes is looked through again.
		if (unused.size() < LeaseStatements.PURGED_PER_ROUND) {
			this.purgeFrom = end.isEmpty() ? "" : end.get(0);
		}
	}

}
