package io.github.dbleader.election.jdbc;

import java.time.Duration;

import io.github.dbleader.election.lock.ClusterLocks;
import org.jspecify.annotations.Nullable;

/**
 * Every statement that a node sends for its elections, rendered once for one kind of
 * server: a platform ({@link SqlDialect}), and on MySQL and MariaDB whether the server is
 * a node of a MariaDB Galera cluster. Each statement is one field. A statement that lists
 * a variable number of rows is a {@link SqlTemplate} whose slots each statement sent
 * expands for its rows. The cluster locks' statements are a catalog of their own for the
 * same kind of server ({@link #locks}), and the partition pins' one for every kind
 * ({@link PinStatements}). {@code docs/reference/statements.md} lists them all, generated
 * from these classes ({@code StatementsReferenceTests}).
 *
 * <p>
 * Parameters are positional ({@code ?}) unless named ({@code :election}); the comments
 * name them in order. Time is the database's, in epoch milliseconds (I1): a parameter
 * {@code ?} added to the clock is a duration in milliseconds.
 *
 * <p>
 * On a MariaDB Galera node the statements that write or compare the server's identity use
 * the cluster's ({@link SqlDialect#galeraIdentity()}: any node of the cluster holds the
 * same data, so a pool that reconnects to another node is no failover), and the reads
 * that decide are causal ({@link #causalRead}: they wait until their node has applied
 * every write that the cluster committed before them).
 */
final class LeaseStatements {

	/**
	 * Most parameters of the keys one statement lists, below PostgreSQL's limit of 32767
	 * with room for the others (a claim of earlier candidacies lists that many names).
	 */
	static final int MAX_PARAMETERS_PER_STATEMENT = 30_000;

	/** Most node rows, and most leases, one purge deletes. */
	static final int PURGED_PER_ROUND = 100;

	/**
	 * Most lease rows one purge looks through for unused ones: the next slice in key
	 * order, so that the search stays far below the statement timeout at any number of
	 * elections.
	 */
	static final int PURGE_SLICE = 1_000;

	/** Most elections one join statement inserts. */
	static final int JOINS_PER_STATEMENT = 1_000;

	/** The platform. */
	final SqlDialect dialect;

	/** Whether these are the statements for a node of a MariaDB Galera cluster. */
	final boolean galeraCluster;

	// ---- Node sessions

	/**
	 * Refreshes the session of a node id that this instance holds: its version moves on,
	 * and it stays live for a lease from the database's now; parameters: the lease, the
	 * node id and the instance id.
	 */
	final String refreshNode;

	/**
	 * Takes a node id over from an earlier instance whose session expired, at the version
	 * the taker watched, with the taker's rank; parameters: the instance id, the rank,
	 * the lease, the node id, the lease again and the version.
	 */
	final String inheritNode;

	/**
	 * Reads another instance's row of a node id: its version, and 1 if it is stale (as
	 * {@link #inheritNode} would find it), 0 if not; parameters: the lease and the node
	 * id.
	 */
	final String readNode;

	/**
	 * Creates the row of a node id; parameters: the node id, the instance id, its rank
	 * and the lease.
	 */
	final String insertNode;

	/** Deletes this instance's node row; parameters: the node id and the instance id. */
	final String removeNode;

	// ---- Candidacies

	/**
	 * Candidacies of a node id that earlier instances left; parameters: the node id and
	 * the instance id.
	 */
	final String earlierCandidacies;

	/**
	 * Claims listed candidacies of a node id for this instance; parameters: the instance
	 * id, the node id, the instance id again, then the elections.
	 */
	final SqlTemplate claimCandidacies;

	/**
	 * Inserts one candidates row while no other instance holds the node id; parameters:
	 * the node id, the instance id, the election, the node id and the instance id again.
	 * Where the platform cannot leave existing rows alone in a multi-row insert (H2), the
	 * join sends one per election.
	 */
	final String insertCandidate;

	/**
	 * Inserts candidates rows, leaving those that exist as they are, while no other
	 * instance holds the node id; parameters: the node id, the instance id, the
	 * elections, the node id and the instance id again. {@code null} where the platform
	 * has no such insert (then {@link #insertCandidate} once per election).
	 */
	final @Nullable SqlTemplate joinAll;

	/**
	 * Deletes one candidacy; parameters: the election, the node id and the instance id.
	 */
	final String removeCandidate;

	/**
	 * Deletes every candidacy of an instance; parameters: the node id and the instance
	 * id.
	 */
	final String removeCandidacies;

	/** This instance's candidacies; parameters: the node id and the instance id. */
	final String ownCandidacies;

	/**
	 * Deletes listed candidacies of an instance; parameters: the node id, the instance
	 * id, then the elections.
	 */
	final SqlTemplate leaveCandidacies;

	/**
	 * The live candidates of an election with the times they were first and last seen;
	 * parameters: the election and the longest age of a live candidate.
	 */
	final String liveCandidates;

	// ---- View reads

	/**
	 * Prefix that makes a read causal on a MariaDB Galera node, for the reads the
	 * election acts on; empty elsewhere. A view's read that waits too long with it is
	 * sent again without it.
	 */
	final String causalRead;

	/** One election's lease with its holder's session; parameter: the election. */
	final String find;

	/**
	 * A node's view read whole: every node row, then every election the instance is a
	 * candidate of with its lease row; parameters: the node id and the instance id.
	 */
	final String viewWhole;

	/**
	 * Every node row, then the lease rows changed from a database time on; parameter: the
	 * time.
	 */
	final String viewChanged;

	/**
	 * As {@link #viewChanged}, and listed lease rows by key; parameters: the time, then
	 * the elections.
	 */
	final SqlTemplate viewChangedAndByKey;

	/** Every node row alone: the first statement of a view read whole in pages. */
	final String viewSessionsOnly;

	/**
	 * A page of a view read whole; parameters: the node id, the instance id, the last
	 * election of the page before (empty for the first) and the most elections of a page.
	 */
	final String viewPage;

	/**
	 * The stored names that the database takes for the listed ones; parameters: the
	 * elections.
	 */
	final SqlTemplate storedNames;

	// ---- Changes of holder, one lease

	/**
	 * Creates an election's lease row; parameters: the election, the node id, the lease
	 * and the instance id.
	 */
	final String create;

	/**
	 * Writes the row of an expired session that a follower watched at a version, in the
	 * transaction of the take-over, so that a refresh of that session and the take-over
	 * are ordered; parameters: the node id and the version.
	 */
	final String takeSession;

	/**
	 * Takes over a lease seen with a live session; parameters: the node id, the lease,
	 * the instance id, the election, the node id, the lease, the version watched, the
	 * node id and the lease.
	 */
	final String takeOver;

	/** As {@link #takeOver}, for a lease seen without a session. */
	final String takeOverWithoutSession;

	/**
	 * As {@link #takeOver}, for a lease whose session was seen ended; one more parameter,
	 * the version the session ended at.
	 */
	final String takeOverFromEndedSession;

	/**
	 * Hands a lease over; parameters: the target, the lease, {@code null} (no session),
	 * the election, the holder and the term.
	 */
	final String handOver;

	/**
	 * Names the server that answers, as the reads name it ({@code answering_server}): a
	 * batched hand-over asks it first, in its transaction, and changes nothing where
	 * another server answers than the one whose read decided it (a failover since). No
	 * parameters.
	 */
	final String answeringServer;

	/**
	 * Gives a lease up; parameters: the node id, the election, the node id and the term.
	 */
	final String yield;

	/**
	 * Re-acquires a lease under a new term; parameters: the lease, the instance id, the
	 * election, the node id and the term.
	 */
	final String reacquire;

	/**
	 * Ends a single-row change's wait for the fence row after half the statement timeout,
	 * a limit the server enforces; parameter: the election. {@code null} where the server
	 * ends it already.
	 */
	final @Nullable String boundFenceWait;

	/**
	 * Copies the holder and term from the lease row to the fence row; parameters: the
	 * election three times.
	 */
	final String updateFence;

	/**
	 * Inserts the fence row from the lease row where it is missing; parameter: the
	 * election.
	 */
	final String insertFence;

	/**
	 * Inserts the fence row, or updates one left from an earlier lease of the same name;
	 * parameter: the election.
	 */
	final String writeFence;

	// ---- Changes of holder, batched (BatchedHolderChange)

	/**
	 * Creates listed leases in one insert; parameters per row: the election, the node id,
	 * the lease and the instance id.
	 */
	final SqlTemplate createAll;

	/**
	 * Writes the fence rows of listed leases from their lease rows; parameters: the
	 * elections.
	 */
	final SqlTemplate writeFences;

	/**
	 * Locks the listed leases still taken over as a follower watched them, with a live
	 * session; parameters: the elections, the node id, the lease, an (election, version)
	 * pair each, the node id and the lease.
	 */
	final SqlTemplate lockTakeable;

	/** As {@link #lockTakeable}, for leases seen without a session. */
	final SqlTemplate lockTakeableWithoutSession;

	/**
	 * As {@link #lockTakeableWithoutSession}, for leases whose session was seen ended;
	 * one more parameter, the version the session ended at.
	 */
	final SqlTemplate lockTakeableFromEndedSession;

	/**
	 * Locks the listed leases that a node still holds with the terms given; parameters:
	 * the elections, the node id, then an (election, term) pair each.
	 */
	final SqlTemplate lockHeld;

	/**
	 * Locks the fence rows of listed leases, skipping those a fenced transaction holds;
	 * parameters: the elections.
	 */
	final SqlTemplate lockFences;

	/** The listed leases that have a fence row; parameters: the elections. */
	final SqlTemplate existingFences;

	/**
	 * Takes over the locked leases of {@link #lockTakeable}; parameters: the node id, the
	 * lease and the instance id, then those of the lock.
	 */
	final SqlTemplate takeOverAll;

	/** As {@link #takeOverAll}, for the leases of {@link #lockTakeableWithoutSession}. */
	final SqlTemplate takeOverAllWithoutSession;

	/**
	 * As {@link #takeOverAll}, for the leases of {@link #lockTakeableFromEndedSession}.
	 */
	final SqlTemplate takeOverAllFromEndedSession;

	/**
	 * Hands over the locked leases of {@link #lockHeld}; parameters: the target, the
	 * lease, {@code null} (no session), then those of the lock.
	 */
	final SqlTemplate handOverAll;

	/**
	 * Gives up the locked leases of {@link #lockHeld}; parameters: the node id, then
	 * those of the lock.
	 */
	final SqlTemplate yieldAll;

	/**
	 * Re-acquires the locked leases of {@link #lockHeld}; parameters: the lease and the
	 * instance id, then those of the lock.
	 */
	final SqlTemplate reacquireAll;

	/**
	 * Copies holder and term to the fence rows of listed leases; parameters: the
	 * elections.
	 */
	final SqlTemplate updateFences;

	/**
	 * The listed leases with their holders' sessions, as {@link #find} reads one;
	 * parameters: the elections.
	 */
	final SqlTemplate findAll;

	// ---- Operators' requests

	/** Records a hand-over request; parameters: the target and the election. */
	final String requestHandover;

	/**
	 * Records hand-over requests of listed leases that a node holds; parameters: the
	 * target, the holder, then the elections.
	 */
	final SqlTemplate requestHandoverAll;

	/** Records a re-election request of a held lease; parameter: the election. */
	final String requestReelection;

	/**
	 * Records a candidate's requests that the holder of listed leases, of a lower rank,
	 * hand them over to it, where the holder still holds them and no request is pending;
	 * parameters: the candidate, the holder, then the elections.
	 */
	final SqlTemplate askToLead;

	// ---- Purges

	/** Node rows not seen for an age, with their versions; parameter: the age. */
	final String staleNodes;

	/**
	 * Deletes a node row still stale at the version found; parameters: the node id, the
	 * version and the age.
	 */
	final String purgeNode;

	/** Deletes the candidacies of a node id; parameter: the node id. */
	final String purgeCandidacies;

	/**
	 * The last key of the next slice of lease rows a purge looks through, if the table
	 * goes on; parameter: the key the slice starts after.
	 */
	final String purgeSliceEnd;

	/**
	 * Unused leases of a slice: expired for an age, no candidate, not a lock; parameters:
	 * the key the slice starts after, the age and the slice's last key.
	 */
	final String unusedLeases;

	/**
	 * As {@link #unusedLeases}, to the end of the table; parameters: the key, the age.
	 */
	final String unusedLeasesToTheEnd;

	/** Deletes a lease still unused; parameters: the election and the age. */
	final String purgeLease;

	/** Deletes an election's fence row; parameter: the election. */
	final String purgeFence;

	// ---- Fenced transactions

	/**
	 * The fence: the first statement of a fenced transaction, with named parameters
	 * {@code :election}, {@code :node}, {@code :term} and {@code :seconds}.
	 */
	final String fence;

	/**
	 * Why the fence refused, read without a lock after it did; parameter: the election.
	 */
	final String fenceView;

	/**
	 * The cluster locks' statements for the same kind of server, a catalog of their own.
	 */
	final LockStatements locks;

	/**
	 * Render the statements.
	 * @param dialect the platform
	 * @param galeraCluster whether for a node of a MariaDB Galera cluster; only where the
	 * platform has Galera ({@link #galeraCluster(SqlDialect)})
	 * @param tables the tables
	 * @param statementTimeout the limit of every statement
	 */
	LeaseStatements(SqlDialect dialect, boolean galeraCluster, LeaseTables tables, Duration statementTimeout) {
		this.dialect = dialect;
		this.galeraCluster = galeraCluster;
		String lease = tables.leaseTable();
		String candidates = tables.candidateTable();
		String fence = tables.fenceTable();
		String nodes = tables.nodesTable();
		String now = dialect.now();
		String server = galeraCluster ? require(dialect.galeraIdentity()) : dialect.serverIdentity();
		String read = galeraCluster ? require(dialect.causalRead()) : "";
		String names = SqlTemplate.NAMES.marker();
		String pairs = SqlTemplate.PAIRS.marker();

		// Node sessions. Three portable statements instead of an upsert: the row of
		// another running instance with the same node id must be left alone, and the
		// caller must learn so. Each write of the row moves the session on (version; so
		// the row changes even on a second heartbeat within one millisecond, and drivers
		// that count changed rather than matched rows, useAffectedRows, count it) and
		// keeps it live for a lease from the database's now. Not from the stored
		// last_seen, which the refresh used to carry forward (GREATEST(now, last_seen +
		// 1)): after the database clock stepped back, that kept a crashed node's session,
		// its leases and its node id for as long as the step.
		this.refreshNode = "UPDATE " + nodes + " SET expires_at = " + now + " + ?, last_seen = " + now
				+ ", version = version + 1 WHERE node_id = ? AND instance_id = ?";
		// The earlier instance's session ends at its last version, which followers that
		// watched it keep watching (assigned first: MySQL assigns from left to right).
		// Only once that session has expired: never from a live one. And once last_seen
		// is a lease old, for a row that an earlier version refreshed without an expiry;
		// that holds from the session's expiry on, as a refresh sets the expiry no
		// earlier than a lease after last_seen (from the statement's now; on PostgreSQL
		// from a later clock_timestamp(), as it assigns in the columns' order), so the id
		// may be taken over exactly when the session counts expired. And only at the
		// version the taker has watched unchanged for a lease on its own clock: the
		// database clock may have stepped forward, and the earlier instance, paused since
		// its last refresh, believes for a lease after it on its own (I3).
		this.inheritNode = "UPDATE " + nodes + " SET previous_instance = instance_id, previous_version = version,"
				+ " instance_id = ?, node_rank = ?, first_seen = " + now + ", last_seen = " + now
				+ ", version = version + 1," + " expires_at = " + now + " + ? WHERE node_id = ? AND expires_at <= "
				+ now + " AND last_seen <= " + now + " - ? AND version = ?";
		this.readNode = "SELECT version, CASE WHEN expires_at <= " + now + " AND last_seen <= " + now
				+ " - ? THEN 1 ELSE 0 END FROM " + nodes + " WHERE node_id = ?";
		this.insertNode = "INSERT INTO " + nodes
				+ " (node_id, instance_id, node_rank, first_seen, last_seen, version, expires_at) VALUES (?, ?, ?, "
				+ now + ", " + now + ", 1, " + now + " + ?)";
		this.removeNode = "DELETE FROM " + nodes + " WHERE node_id = ? AND instance_id = ?";

		// Candidacies. first_seen restarts too: a restarted process is a new member
		// (partition groups let a member settle before it gets partitions). Found by a
		// plain read, then claimed by key: an update that ranged over the node's index
		// entries locked the gaps around them, and nodes starting together, joining their
		// elections meanwhile, deadlocked on them (InnoDB).
		this.earlierCandidacies = "SELECT election_name FROM " + candidates + " WHERE node_id = ? AND instance_id <> ?";
		this.claimCandidacies = new SqlTemplate(
				"UPDATE " + dialect.byKey(candidates) + " SET instance_id = ?," + " first_seen = " + now
						+ " WHERE node_id = ? AND instance_id <> ? AND election_name IN (" + names + ")",
				SqlTemplate.NAMES);
		// Only while no other instance holds the node id: a join sent before another
		// instance
		// took the id over, and applied after, would leave a row naming the earlier
		// instance,
		// never live, that the current instance's joins leave as it is (simulator seed
		// 6158094).
		String parameter = dialect.stringParameter();
		String join = "INSERT INTO " + candidates + " (election_name, node_id, instance_id, first_seen, last_seen)"
				+ " SELECT j.joined, " + parameter + ", " + parameter + ", " + now + ", " + now + " FROM (";
		String joinedElection = "SELECT " + parameter + " AS joined";
		String notTakenOver = " WHERE NOT EXISTS (SELECT 1 FROM " + nodes
				+ " n WHERE n.node_id = ? AND n.instance_id <> ?)";
		this.insertCandidate = join + joinedElection + ") j" + notTakenOver;
		String ignoreDuplicates = dialect.ignoreDuplicateKeys("election_name");
		if (dialect == SqlDialect.POSTGRESQL) {
			// PostgreSQL plans a union of 1,000 selects in about 0.6 s on an idle
			// machine,
			// a list of 1,000 values in a few milliseconds: a join of many elections
			// would near the statement timeout, and pass it under load.
			SqlTemplate.Slot joined = new SqlTemplate.Slot("joined", "(" + parameter + ")", ", ");
			this.joinAll = new SqlTemplate(
					join + "VALUES " + joined.marker() + ") j (joined)" + notTakenOver + ignoreDuplicates, joined);
		}
		else {
			SqlTemplate.Slot joined = new SqlTemplate.Slot("joined", joinedElection, " UNION ALL ");
			this.joinAll = (ignoreDuplicates != null)
					? new SqlTemplate(join + joined.marker() + ") j" + notTakenOver + ignoreDuplicates, joined) : null;
		}
		this.removeCandidate = "DELETE FROM " + candidates
				+ " WHERE election_name = ? AND node_id = ? AND instance_id = ?";
		this.removeCandidacies = "DELETE FROM " + candidates + " WHERE node_id = ? AND instance_id = ?";
		this.ownCandidacies = "SELECT election_name FROM " + candidates + " WHERE node_id = ? AND instance_id = ?";
		this.leaveCandidacies = new SqlTemplate("DELETE FROM " + candidates
				+ " WHERE node_id = ? AND instance_id = ? AND election_name IN (" + names + ")", SqlTemplate.NAMES);
		// A candidate is live while its node's row is fresh and names the same instance.
		this.liveCandidates = read + "SELECT c.node_id, c.first_seen, n.last_seen FROM " + candidates + " c JOIN "
				+ nodes + " n ON n.node_id = c.node_id AND n.instance_id = c.instance_id"
				+ " WHERE c.election_name = ? AND n.last_seen > " + now + " - ? ORDER BY c.node_id";

		// View reads: plain, sent with causalRead where they decide.
		this.causalRead = read;
		String selectElections = LeaseRows.selectElections(dialect, lease, nodes, server);
		this.find = read + selectElections + " WHERE l.election_name = ?";
		String viewSessions = LeaseRows.viewSessions(dialect, nodes, server);
		this.viewWhole = viewSessions + LeaseRows.viewWhole(lease, candidates);
		this.viewChanged = viewSessions + LeaseRows.viewChanged(lease);
		this.viewChangedAndByKey = new SqlTemplate(this.viewChanged + LeaseRows.viewByKey(lease) + names + ")",
				SqlTemplate.NAMES);
		this.viewSessionsOnly = viewSessions;
		this.viewPage = LeaseRows.viewPage(lease, candidates);
		this.storedNames = new SqlTemplate(
				"SELECT election_name FROM " + lease + " WHERE election_name IN (" + names + ")", SqlTemplate.NAMES);

		// Changes of holder, one lease.
		String newTerm = LeaseRows.newTerm(now, server) + ", leader_instance = ?";
		String reacquiredTerm = LeaseRows.reacquiredTerm(now, server) + ", leader_instance = ?";
		String sessions = LeaseRows.sessions(dialect, nodes);
		this.create = LeaseRows.insertElection(dialect, lease, server);
		this.takeSession = "UPDATE " + nodes + " SET takeovers = takeovers + 1 WHERE node_id = ? AND version = ?"
				+ " AND expires_at <= " + now;
		this.takeOver = "UPDATE " + lease + " SET leader_id = ?, " + newTerm + " WHERE election_name = ? AND "
				+ LeaseRows.takeable(now, "version = ?", sessions);
		this.takeOverWithoutSession = this.takeOver + " AND " + LeaseRows.noSession(sessions);
		this.takeOverFromEndedSession = this.takeOverWithoutSession + " AND " + LeaseRows.sessionEndedAt(sessions);
		String heldByTerm = " WHERE election_name = ? AND leader_id = ? AND term = ?";
		this.handOver = "UPDATE " + lease + " SET leader_id = ?, " + newTerm + heldByTerm;
		this.answeringServer = "SELECT " + server + " AS answering_server";
		String yielded = "leader_id = NULL, version = version + 1, expires_at = " + now
				+ ", handover_to = NULL, reelection_requested = FALSE, yielded_by = ?, leader_instance = NULL, "
				+ LeaseRows.changed(now);
		this.yield = "UPDATE " + lease + " SET " + yielded + heldByTerm;
		this.reacquire = "UPDATE " + lease + " SET " + reacquiredTerm + heldByTerm;
		this.boundFenceWait = dialect.boundFenceWait(fence, statementTimeout.dividedBy(2));
		// The fence row copies the holder from the lease row, in the transaction that
		// changed it.
		String holder = " FROM " + lease + " WHERE election_name = ?)";
		this.updateFence = "UPDATE " + fence + " SET leader_id = (SELECT leader_id" + holder + ", term = (SELECT term"
				+ holder + " WHERE election_name = ?";
		this.insertFence = "INSERT INTO " + fence + " (election_name, leader_id, term) SELECT election_name, "
				+ "leader_id, term FROM " + lease + " WHERE election_name = ?";
		this.writeFence = dialect.writeFence(fence, lease);

		// Changes of holder, batched: each row under the single-row statement's
		// conditions, with its version or term as an (election, version or term) pair.
		String insert = LeaseRows.insertElection(dialect, lease, server);
		int values = insert.indexOf(" VALUES ") + " VALUES ".length();
		SqlTemplate.Slot rows = new SqlTemplate.Slot("rows", insert.substring(values), ", ");
		this.createAll = new SqlTemplate(insert.substring(0, values) + rows.marker(), rows);
		this.writeFences = new SqlTemplate(dialect.writeFences(fence, lease, "IN (" + names + ")"), SqlTemplate.NAMES);
		String takeable = " AND " + LeaseRows.takeable(now, "(election_name, version) IN (" + pairs + ")", sessions);
		String takeableWithoutSession = takeable + " AND " + LeaseRows.noSession(sessions);
		String takeableFromEndedSession = takeableWithoutSession + " AND " + LeaseRows.sessionEndedAt(sessions);
		String heldWithTerm = " AND leader_id = ? AND (election_name, term) IN (" + pairs + ")";
		String keyed = " WHERE election_name IN (" + names + ")";
		String lockRows = "SELECT election_name FROM " + dialect.byKey(lease) + keyed;
		this.lockTakeable = batched(lockRows + takeable + " FOR UPDATE");
		this.lockTakeableWithoutSession = batched(lockRows + takeableWithoutSession + " FOR UPDATE");
		this.lockTakeableFromEndedSession = batched(lockRows + takeableFromEndedSession + " FOR UPDATE");
		this.lockHeld = batched(lockRows + heldWithTerm + " FOR UPDATE");
		this.lockFences = new SqlTemplate(
				"SELECT election_name FROM " + dialect.byKey(fence) + keyed + " FOR UPDATE SKIP LOCKED",
				SqlTemplate.NAMES);
		this.existingFences = new SqlTemplate("SELECT election_name FROM " + fence + keyed, SqlTemplate.NAMES);
		String update = "UPDATE " + dialect.byKey(lease) + " SET ";
		String takenOver = update + "leader_id = ?, " + newTerm + keyed;
		this.takeOverAll = batched(takenOver + takeable);
		this.takeOverAllWithoutSession = batched(takenOver + takeableWithoutSession);
		this.takeOverAllFromEndedSession = batched(takenOver + takeableFromEndedSession);
		this.handOverAll = batched(takenOver + heldWithTerm);
		this.yieldAll = batched(update + yielded + keyed + heldWithTerm);
		this.reacquireAll = batched(update + reacquiredTerm + keyed + heldWithTerm);
		String batchHolder = " FROM " + lease + " l WHERE l.election_name = " + fence + ".election_name)";
		this.updateFences = new SqlTemplate("UPDATE " + dialect.byKey(fence) + " SET leader_id = (SELECT l.leader_id"
				+ batchHolder + ", term = (SELECT l.term" + batchHolder + keyed, SqlTemplate.NAMES);
		this.findAll = new SqlTemplate(selectElections + " WHERE l.election_name IN (" + names + ")",
				SqlTemplate.NAMES);

		// Operators' requests.
		String changed = ", " + LeaseRows.changed(now);
		this.requestHandover = "UPDATE " + lease + " SET handover_to = ?, reelection_requested = FALSE,"
				+ " version = version + 1" + changed + " WHERE election_name = ?";
		this.requestHandoverAll = new SqlTemplate("UPDATE " + dialect.byKey(lease) + " SET handover_to = ?,"
				+ " reelection_requested = FALSE, version = version + 1" + changed
				+ " WHERE leader_id = ? AND election_name IN (" + names + ")", SqlTemplate.NAMES);
		this.askToLead = new SqlTemplate("UPDATE " + dialect.byKey(lease) + " SET handover_to = ?,"
				+ " version = version + 1" + changed + " WHERE leader_id = ? AND handover_to IS NULL"
				+ " AND reelection_requested = FALSE AND election_name IN (" + names + ")", SqlTemplate.NAMES);
		this.requestReelection = "UPDATE " + lease + " SET reelection_requested = TRUE, handover_to = NULL,"
				+ " version = version + 1" + changed + " WHERE election_name = ? AND leader_id IS NOT NULL";

		// Purges. Plain reads find what to purge; the deletes then reach each row by its
		// key, with no subquery: a delete that scanned, or whose anti-join the optimizer
		// materialized, would lock rows it does not delete and so queue behind fenced
		// work (I9). Each row's delete and its dependants' share a transaction, so that a
		// node that comes back, or creates the lease anew, waits for the purge and then
		// writes its rows again.
		String stale = " < " + now + " - ?";
		String limit = " ORDER BY 1 LIMIT " + PURGED_PER_ROUND;
		// A node row is deleted at the second purge that finds it stale at the same
		// version:
		// a live node moves its version on at least every half lease, however far the
		// database clock jumped forward (which makes every row look stale at once).
		this.staleNodes = "SELECT node_id, version FROM " + nodes + " WHERE last_seen" + stale + limit;
		this.purgeNode = "DELETE FROM " + nodes + " WHERE node_id = ? AND version = ? AND last_seen" + stale;
		this.purgeCandidacies = "DELETE FROM " + candidates + " WHERE node_id = ?";
		// Lock rows are never purged: a node takes a lock by updating the row it knows
		// exists. With sessions, almost every lease row's own expiry is old: a search by
		// it alone would read the whole table. A slice of keys at a time instead.
		this.purgeSliceEnd = "SELECT election_name FROM " + lease + " WHERE election_name > ? ORDER BY election_name"
				+ " LIMIT 1 OFFSET " + (PURGE_SLICE - 1);
		String unused = "SELECT election_name FROM " + lease + " l WHERE l.election_name > ? AND expires_at" + stale
				+ " AND NOT EXISTS (SELECT 1 FROM " + candidates + " c WHERE c.election_name = l.election_name)"
				+ " AND l.election_name NOT LIKE '" + ClusterLocks.KEY_PREFIX + "%'";
		this.unusedLeases = unused + " AND l.election_name <= ?" + limit;
		this.unusedLeasesToTheEnd = unused + limit;
		this.purgeLease = "DELETE FROM " + lease + " WHERE election_name = ? AND expires_at" + stale;
		this.purgeFence = "DELETE FROM " + fence + " WHERE election_name = ?";

		// Fenced transactions.
		this.fence = dialect.fence(fence, lease, nodes);
		// Only after the fence refused: why, for the exception's message.
		this.fenceView = "SELECT f.leader_id, f.term, (SELECT CASE WHEN " + dialect.live("l", nodes)
				+ " THEN 1 ELSE 0 END FROM " + lease + " l WHERE l.election_name = f.election_name"
				+ " AND l.leader_id = f.leader_id AND l.term = f.term) AS valid FROM " + fence
				+ " f WHERE f.election_name = ?";

		this.locks = new LockStatements(dialect, server, read, tables, statementTimeout);
	}

	/**
	 * Whether a platform has statements for a node of a MariaDB Galera cluster.
	 * @param dialect the platform
	 * @return whether it has
	 */
	static boolean galeraCluster(SqlDialect dialect) {
		return dialect.galeraIdentity() != null && dialect.causalRead() != null;
	}

	private static SqlTemplate batched(String text) {
		return new SqlTemplate(text, SqlTemplate.NAMES, SqlTemplate.PAIRS);
	}

	private static String require(@Nullable String sql) {
		if (sql == null) {
			throw new IllegalArgumentException("The platform has no MariaDB Galera statements");
		}
		return sql;
	}

}
