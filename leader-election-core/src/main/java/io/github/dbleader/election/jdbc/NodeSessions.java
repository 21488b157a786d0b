package io.github.dbleader.election.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.dbleader.election.Candidacy;
import io.github.dbleader.election.NodeRowSighting;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Node sessions and candidacies: each running instance's row in the nodes table, which
 * its heartbeat refreshes and whose refresh renews every lease it holds, and the
 * candidates rows that say which elections it takes part in.
 */
final class NodeSessions {

	private final JdbcStore store;

	private final ViewReads views;

	private final RefusedRows refusedRows;

	/**
	 * The instance whose heartbeat holds each node id's row, as this repository last sent
	 * it: the session that the leases a node acquires live on.
	 */
	private final Map<String, String> sessions = new ConcurrentHashMap<>();

	/**
	 * Create the sessions.
	 * @param store where the statements go
	 * @param views the views, told when their candidacies change
	 * @param refusedRows the rows the database refused
	 */
	NodeSessions(JdbcStore store, ViewReads views, RefusedRows refusedRows) {
		this.store = store;
		this.views = views;
		this.refusedRows = refusedRows;
	}

	/**
	 * The instance whose session a node's leases live on, as last sent.
	 * @param nodeId the node id
	 * @return the instance id, or {@code null} if this repository holds no session of it
	 */
	@Nullable String instanceOf(String nodeId) {
		return this.sessions.get(nodeId);
	}

	Candidacy heartbeat(String nodeId, String instanceId, String rank, Duration staleAfter, long inheritVersion) {
		LeaseStatements statements = this.store.platformStatements();
		JdbcTemplate jdbc = this.store.jdbc();
		long millis = staleAfter.toMillis();
		// Steady state is the first statement alone.
		if (jdbc.update(statements.refreshNode, millis, nodeId, instanceId) == 1) {
			this.sessions.put(nodeId, instanceId);
			return Candidacy.HELD;
		}
		this.sessions.remove(nodeId, instanceId);
		this.views.invalidate(nodeId);
		Candidacy candidacy;
		if (inheritVersion >= 0
				&& jdbc.update(statements.inheritNode, instanceId, rank, millis, nodeId, millis, inheritVersion) == 1) {
			candidacy = Candidacy.INHERITED;
		}
		else {
			try {
				jdbc.update(statements.insertNode, nodeId, instanceId, rank, millis);
				candidacy = Candidacy.CREATED;
			}
			catch (DuplicateKeyException ex) {
				// A live row of another instance, or one written since the statements
				// above.
				return Candidacy.IN_USE;
			}
		}
		this.sessions.put(nodeId, instanceId);
		// The node id is this instance's now, and so are the candidacies of earlier
		// instances.
		List<String> earlier = jdbc.queryForList(statements.earlierCandidacies, String.class, nodeId, instanceId);
		this.store.updateListed(statements.claimCandidacies, List.of(instanceId, nodeId, instanceId), earlier,
				LeaseStatements.MAX_PARAMETERS_PER_STATEMENT);
		return candidacy;
	}

	@Nullable NodeRowSighting nodeRow(String nodeId, Duration staleAfter) {
		List<NodeRowSighting> rows = this.store.jdbc()
			.query(this.store.platformStatements().readNode,
					(rs, row) -> new NodeRowSighting(rs.getLong(1), rs.getInt(2) == 1), staleAfter.toMillis(), nodeId);
		return rows.isEmpty() ? null : rows.get(0);
	}

	void removeCandidate(String election, String nodeId, String instanceId) {
		this.views.view(nodeId, instanceId).left(election);
		this.store.jdbc().update(this.store.platformStatements().removeCandidate, election, nodeId, instanceId);
	}

	/**
	 * Found by a plain read, then deleted by key, a chunk of names per statement, as the
	 * claim of earlier candidacies is: a delete that ranged over the node's index entries
	 * would lock the gaps where other nodes insert theirs.
	 */
	void leaveOtherElections(String nodeId, String instanceId, Collection<String> elections) {
		LeaseStatements statements = this.store.platformStatements();
		this.views.view(nodeId, instanceId).retain(elections);
		Set<String> running = new HashSet<>(elections);
		List<String> others = new ArrayList<>();
		for (String election : this.store.jdbc()
			.queryForList(statements.ownCandidacies, String.class, nodeId, instanceId)) {
			if (!running.contains(election)) {
				others.add(election);
			}
		}
		this.store.updateListed(statements.leaveCandidacies, List.of(nodeId, instanceId), others,
				LeaseStatements.MAX_PARAMETERS_PER_STATEMENT);
	}

	void join(String nodeId, String instanceId, Collection<String> elections) {
		// The view knows how many elections its first read reads (in pages, if many).
		this.views.view(nodeId, instanceId).joined(elections);
		LeaseStatements statements = this.store.platformStatements();
		String table = this.store.tables().candidateTable();
		SqlTemplate joinAll = statements.joinAll;
		if (joinAll == null) {
			for (String election : elections) {
				try {
					this.store.jdbc()
						.update(statements.insertCandidate, nodeId, instanceId, election, nodeId, instanceId);
					this.refusedRows.accepted(table, List.of(election));
				}
				catch (DuplicateKeyException ex) {
					// Left as it is: this instance's, or another's.
				}
				catch (DataAccessException ex) {
					if (!RefusedRows.refusesRow(ex)) {
						throw ex;
					}
					this.refusedRows.refused(table, election, ex, List.of());
				}
			}
			return;
		}
		List<String> batched = new ArrayList<>(elections.size());
		List<String> alone = new ArrayList<>();
		this.refusedRows.split(table, elections, batched, alone);
		// Chunks of a thousand elections.
		for (int from = 0; from < batched.size(); from += LeaseStatements.JOINS_PER_STATEMENT) {
			join(nodeId, instanceId,
					batched.subList(from, Math.min(batched.size(), from + LeaseStatements.JOINS_PER_STATEMENT)),
					joinAll);
		}
		alone.forEach((election) -> join(nodeId, instanceId, List.of(election), joinAll));
	}

	/**
	 * Insert one chunk of candidates rows in one statement; a chunk that fails for a row
	 * the database refuses is halved until that row is alone, as the creation of leases
	 * is.
	 */
	private void join(String nodeId, String instanceId, List<String> chunk, SqlTemplate joinAll) {
		List<Object> args = new ArrayList<>(chunk.size() + 4);
		args.addAll(List.of(nodeId, instanceId));
		args.addAll(chunk);
		args.addAll(List.of(nodeId, instanceId));
		String table = this.store.tables().candidateTable();
		try {
			this.store.jdbc().update(joinAll.render(chunk.size()), args.toArray());
			this.refusedRows.accepted(table, chunk);
		}
		catch (DataAccessException ex) {
			if (!RefusedRows.refusesRow(ex)) {
				throw ex;
			}
			if (chunk.size() == 1) {
				this.refusedRows.refused(table, chunk.get(0), ex, List.of());
				return;
			}
			join(nodeId, instanceId, chunk.subList(0, chunk.size() / 2), joinAll);
			join(nodeId, instanceId, chunk.subList(chunk.size() / 2, chunk.size()), joinAll);
		}
	}

	void removeCandidacies(String nodeId, String instanceId) {
		LeaseStatements statements = this.store.platformStatements();
		this.sessions.remove(nodeId, instanceId);
		this.views.remove(nodeId, instanceId);
		this.store.jdbc().update(statements.removeCandidacies, nodeId, instanceId);
		this.store.jdbc().update(statements.removeNode, nodeId, instanceId);
	}

}
