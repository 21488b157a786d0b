package io.github.dbleader.election;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiPredicate;

import org.jspecify.annotations.Nullable;

/**
 * The statements of the election, one method each. Every time comparison is made by the
 * database against its own clock; the caller never passes a wall-clock time. Each write
 * returns whether the database applied it; an exception means the outcome is unknown (the
 * caller must not assume it was applied).
 *
 * <p>
 * A lease stays alive while its holder's <em>session</em> does: the one row of the
 * holder's node id, which the holder's {@link #heartbeat} refreshes every renew interval,
 * as long as that row still names the running instance that acquired the lease. The
 * acquiring methods ({@link #create}, {@link #createAll}, {@link #takeOver},
 * {@link #takeOverAll}, {@link #reacquire}, {@link #reacquireAll}) tie the lease to the
 * instance whose heartbeat last held the node's row through this repository; a lease
 * without a session (none held, or handed over and not yet re-acquired) lives until its
 * own expiry. So renewing costs one statement whatever the number of leases held.
 *
 * <p>
 * A node's heartbeat costs a fixed number of statements whatever the number of its
 * elections (invariants.md I9): {@link #heartbeat} and {@link #readAll}. Changes of
 * holder are batched too ({@link #createAll}, {@link #takeOverAll}, {@link #handOverAll},
 * {@link #yieldAll}, {@link #reacquireAll}), each row under the conditions of its
 * single-row statement; giving a lease up on request stays single-row.
 *
 * <p>
 * Implementations must bound every call by a statement timeout shorter than the renew
 * interval.
 */
public interface LeaseRepository {

	/**
	 * Read the lease of an election.
	 * @param election election name
	 * @return the lease, or empty if the election has no row yet
	 */
	Optional<LeaseState> find(String election);

	/**
	 * Create the lease row with this node as its first leader.
	 * @param election election name
	 * @param nodeId this node
	 * @param lease lease duration
	 * @return {@code true} if created, {@code false} if the row already existed
	 */
	boolean create(String election, String nodeId, Duration lease);

	/**
	 * Create many leases at once with this node as their first leader. A lease that
	 * exists already (another node created it first) is left as it is, and an
	 * implementation may then create none of the batch. The answer lists exactly the
	 * leases this call created, as they are right after it. An exception means the
	 * outcome is unknown: the caller learns from its next read which ones exist and whom
	 * they name.
	 * <p>
	 * This default creates them one {@link #create} and one {@link #find} each;
	 * implementations on a database create a batch in one transaction of a few
	 * statements, all of it or none.
	 * @param nodeId this node
	 * @param elections the elections, none of which had a row at this node's last read
	 * @param lease lease duration
	 * @return the leases created, as read after being created
	 */
	default List<LeaseState> createAll(String nodeId, List<String> elections, Duration lease) {
		List<LeaseState> created = new ArrayList<>();
		for (String election : elections) {
			if (create(election, nodeId, lease)) {
				find(election).ifPresent(created::add);
			}
		}
		return created;
	}

	/**
	 * Read the leases of every election in which this running instance has its own
	 * candidates row, in one statement. Where the consistent read waits too long, an
	 * implementation may answer with an older view (MariaDB Galera: the node's own data):
	 * versions only grow, and every change of holder is conditional on the version seen,
	 * so a decision on an older view can only fail.
	 * @param nodeId this node
	 * @param instanceId token of this running instance
	 * @return the leases that exist, in no particular order
	 */
	List<LeaseState> findAll(String nodeId, String instanceId);

	/**
	 * Read the leases as {@link #findAll} does and answer them by election: what the
	 * heartbeat calls every round. This default calls {@link #findAll} and keeps its
	 * answer in a map. A repository that keeps a view of the leases between reads may
	 * answer from it instead, composing each lease when it is asked for: a node may have
	 * hundreds of thousands of elections, and the heartbeat asks for each once a round.
	 * @param nodeId this node
	 * @param instanceId token of this running instance
	 * @return the leases that exist, by election, answered from memory until the next
	 * read
	 */
	default LeaseReads readAll(String nodeId, String instanceId) {
		List<LeaseState> leases = findAll(nodeId, instanceId);
		Map<String, LeaseState> byElection = new HashMap<>((int) (leases.size() / 0.75f) + 1);
		for (LeaseState lease : leases) {
			byElection.put(lease.election(), lease);
		}
		return byElection::get;
	}

	/**
	 * Take the lease: either it is vacant (and this node did not yield it within the last
	 * lease), or it still has the observed version and has expired by the database clock,
	 * and so has its holder's session, still at the observed version. Taking a lease from
	 * a session writes the session's row in the same transaction, so that the take-over
	 * and a refresh of that session are ordered: whichever comes second sees the first. A
	 * pending hand-over to another node keeps others out for one lease after expiry.
	 * Assigns a new, strictly greater term.
	 * @param election election name
	 * @param nodeId this node
	 * @param observed what the caller saw unchanged for a whole lease, or
	 * {@link LeaseObservation#vacant()} to take only a vacant lease
	 * @param lease lease duration
	 * @return {@code true} if this node now holds the lease
	 */
	boolean takeOver(String election, String nodeId, LeaseObservation observed, Duration lease);

	/**
	 * Take over many leases at once, each under the conditions of {@link #takeOver} with
	 * its own observed version (I3, I4, I6 per election). The answer tells exactly which
	 * leases this call took, as they are right after it; a lease that names this node for
	 * another reason (handed to it meanwhile) is not among them. An exception means the
	 * outcome is unknown for every listed lease: the caller must not assume it took any,
	 * and learns from its next read which ones name it.
	 * <p>
	 * This default takes them one {@link #takeOver} and one {@link #find} each;
	 * implementations on a database do it in a few statements per batch.
	 * @param nodeId this node
	 * @param observed by election: what the caller saw unchanged for a whole lease, or
	 * {@link LeaseObservation#vacant()} to take only a vacant lease
	 * @param lease lease duration
	 * @return the leases taken, as read after being taken
	 */
	default List<LeaseState> takeOverAll(String nodeId, Map<String, LeaseObservation> observed, Duration lease) {
		return each(observed, (election, observation) -> takeOver(election, nodeId, observation, lease));
	}

	/**
	 * Hand many leases over to one node at once, each under the conditions of
	 * {@link #handOver} with its own term; answered as {@link #takeOverAll} is.
	 * <p>
	 * This default hands them over one {@link #handOver} and one {@link #find} each.
	 * @param fromNodeId this node, the current holder
	 * @param terms by election: the term held
	 * @param toNodeId the node that gets the leases
	 * @param lease lease duration
	 * @return the leases handed over, as read after
	 */
	default List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease) {
		return each(terms, (election, term) -> handOver(election, fromNodeId, term, toNodeId, lease));
	}

	/**
	 * Hand many leases over as {@link #handOverAll(String, Map, String, Duration)} does,
	 * but only on the server whose read the hand-over was decided on: where another
	 * server answers (the database failed over since that read), nothing is handed over.
	 * The promoted server may have lost a newer holder's take-over, whose holder believes
	 * until a lease after its last renewal on the old server; the node the lease goes to
	 * believes as soon as it re-acquires the lease, so the hand-over must not reach that
	 * server before the holder has read it and waited out its failover (I3).
	 * <p>
	 * This default ignores the server: right only for a repository whose database never
	 * answers from another server.
	 * @param fromNodeId this node, the current holder
	 * @param terms by election: the term held
	 * @param toNodeId the node that gets the leases
	 * @param lease lease duration
	 * @param decidedOn the server that answered the read the hand-over was decided on
	 * ({@link LeaseState#server()}), or {@code null} where the repository names none
	 * @return the leases handed over, as read after
	 */
	default List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease,
			@Nullable String decidedOn) {
		return handOverAll(fromNodeId, terms, toNodeId, lease);
	}

	/**
	 * Give many leases up at once, each under the conditions of {@link #yield} with its
	 * own term; answered as {@link #takeOverAll} is.
	 * <p>
	 * This default gives them up one {@link #yield} and one {@link #find} each.
	 * @param nodeId this node, the current holder
	 * @param terms by election: the term held
	 * @return the leases given up, as read after
	 */
	default List<LeaseState> yieldAll(String nodeId, Map<String, Long> terms) {
		return each(terms, (election, term) -> this.yield(election, nodeId, term));
	}

	/**
	 * Reacquire many of this node's leases at once, each under the conditions of
	 * {@link #reacquire} with its own term; answered as {@link #takeOverAll} is.
	 * <p>
	 * This default reacquires them one {@link #reacquire} and one {@link #find} each.
	 * @param nodeId this node, the current holder
	 * @param terms by election: the term held
	 * @param lease lease duration
	 * @return the leases reacquired, as read after
	 */
	default List<LeaseState> reacquireAll(String nodeId, Map<String, Long> terms, Duration lease) {
		return each(terms, (election, term) -> reacquire(election, nodeId, term, lease));
	}

	private <V> List<LeaseState> each(Map<String, V> rows, BiPredicate<String, V> change) {
		List<LeaseState> changed = new ArrayList<>();
		rows.forEach((election, value) -> {
			if (change.test(election, value)) {
				find(election).ifPresent(changed::add);
			}
		});
		return changed;
	}

	/**
	 * Give the lease of the given term from this node to another, with a new term.
	 * @param election election name
	 * @param fromNodeId this node, the current holder
	 * @param term the term held
	 * @param toNodeId the node that gets the lease
	 * @param lease lease duration
	 * @return {@code true} if handed over
	 */
	boolean handOver(String election, String fromNodeId, long term, String toNodeId, Duration lease);

	/**
	 * Give the lease of the given term up: it becomes vacant at once.
	 * @param election election name
	 * @param nodeId this node, the current holder
	 * @param term the term held
	 * @return {@code true} if given up
	 */
	boolean yield(String election, String nodeId, long term);

	/**
	 * Take this node's own lease again with a new term, after the database server
	 * changed.
	 * @param election election name
	 * @param nodeId this node, the current holder
	 * @param term the term held
	 * @param lease lease duration
	 * @return {@code true} if re-acquired
	 */
	boolean reacquire(String election, String nodeId, long term, Duration lease);

	/**
	 * Record a request to move leadership to a node; the leader carries it out.
	 * @param election election name
	 * @param nodeId the node that should lead
	 * @return {@code true} if recorded, {@code false} if the election has no row
	 */
	boolean requestHandover(String election, String nodeId);

	/**
	 * Record requests to move leadership of many leases that this node holds, each to its
	 * own node, in a few statements; a lease that no longer names this node is left
	 * alone.
	 * <p>
	 * This default records them one {@link #requestHandover} each (without the check of
	 * the holder).
	 * @param holderId this node, the holder of the leases
	 * @param targets by election: the node that should lead
	 * @return how many requests were recorded
	 */
	default int requestHandoverAll(String holderId, Map<String, String> targets) {
		int recorded = 0;
		for (Map.Entry<String, String> target : targets.entrySet()) {
			recorded += requestHandover(target.getKey(), target.getValue()) ? 1 : 0;
		}
		return recorded;
	}

	/**
	 * Record a request for a re-election; the leader carries it out.
	 * @param election election name
	 * @return {@code true} if recorded, {@code false} if the election has no leader
	 */
	boolean requestReelection(String election);

	/**
	 * Record that this node is alive, in the one row of its node id, unless another
	 * running instance uses the same node id: the row carries the token of the instance
	 * that wrote it. Another instance's row is taken over only where it is still at
	 * {@code inheritVersion}, a version this instance has watched unchanged for a whole
	 * lease on its own clock ({@link #nodeRow}), and its last heartbeat is older than
	 * {@code staleAfter} (database clock); it counts as in use otherwise. When this
	 * instance creates the row or takes it over, the candidates rows of the node id
	 * become this instance's too. The row is the instance's session: every write of it
	 * moves its version on by one and makes it live until {@code staleAfter} from now,
	 * and with it every lease this instance acquired.
	 * @param nodeId this node
	 * @param instanceId token of this running instance, the same for all its heartbeats
	 * @param staleAfter age after which another instance's row may be taken over: the
	 * lease
	 * @param inheritVersion the version of another instance's row that may be taken over,
	 * or {@code -1} to take none over
	 * @return whether this instance may use the node id, and how it got it
	 */
	Candidacy heartbeat(String nodeId, String instanceId, Duration staleAfter, long inheritVersion);

	/**
	 * Record that this node is alive, as
	 * {@link #heartbeat(String, String, Duration, long)} does, with the rank of this
	 * running instance ({@link RankOrder}) in the row it creates or takes over, where
	 * followers read it with the session of each lease it holds
	 * ({@link LeaseState#holderRank()}). This default keeps no rank: a repository that
	 * keeps none answers every holder's rank as {@code null}, and leadership then never
	 * moves by rank.
	 * @param nodeId this node
	 * @param instanceId token of this running instance, the same for all its heartbeats
	 * @param rank the rank of this running instance, the same for all its heartbeats
	 * @param staleAfter age after which another instance's row may be taken over: the
	 * lease
	 * @param inheritVersion the version of another instance's row that may be taken over,
	 * or {@code -1} to take none over
	 * @return whether this instance may use the node id, and how it got it
	 */
	default Candidacy heartbeat(String nodeId, String instanceId, String rank, Duration staleAfter,
			long inheritVersion) {
		return heartbeat(nodeId, instanceId, staleAfter, inheritVersion);
	}

	/**
	 * Ask the holder of each listed lease to hand it over to this node: record a request
	 * to move leadership to {@code nodeId} on each lease that {@code holderId} still
	 * holds and that has no request pending (an operator's hand-over or re-election is
	 * never replaced), in a few statements. The holder carries each out at its next
	 * renewal by the ordinary hand-over. A candidate of a higher rank than the holder's
	 * calls this.
	 * <p>
	 * This default refuses: only a repository that keeps ranks answers a holder's rank,
	 * and without one no candidate asks.
	 * @param nodeId this node, the candidate that asks
	 * @param holderId the node that holds the leases
	 * @param elections the elections whose leases to ask for
	 * @return how many requests were recorded
	 * @throws UnsupportedOperationException if the repository keeps no ranks
	 */
	default int askToLead(String nodeId, String holderId, Collection<String> elections) {
		throw new UnsupportedOperationException(getClass().getName() + " keeps no ranks");
	}

	/**
	 * Read the row of a node id, as an instance that found it another's does to watch it.
	 * @param nodeId the node id
	 * @param staleAfter age after which the row counts as stale (database clock): the
	 * lease
	 * @return the row's version and whether it is stale, or {@code null} if there is no
	 * row
	 */
	@Nullable NodeRowSighting nodeRow(String nodeId, Duration staleAfter);

	/**
	 * Whether the database refuses a row of the election (its name taken for another's
	 * under the key's collation, or one it cannot store), which this repository has
	 * reported at WARN with the cause: its creation then fails every round for that
	 * reason, not because a read missed a lease that exists. Never touches the database.
	 * @param election election name
	 * @return {@code true} if a row of it is refused, as last reported
	 */
	default boolean refusesRowsOf(String election) {
		return false;
	}

	/**
	 * Join elections as a candidate: insert this instance's candidates row in each of
	 * them where it has none, in one statement where the database allows. Existing rows
	 * are left as they are. A candidates row counts as live while its node's row (see
	 * {@link #heartbeat}) is fresh and names the same instance.
	 * @param nodeId this node
	 * @param instanceId token of this running instance
	 * @param elections election names
	 */
	void join(String nodeId, String instanceId, Collection<String> elections);

	/**
	 * Remove this node from the candidates, if the row is this instance's own.
	 * @param election election name
	 * @param nodeId this node
	 * @param instanceId token of this running instance
	 */
	void removeCandidate(String election, String nodeId, String instanceId);

	/**
	 * Leave every election of this running instance that is not listed: delete its
	 * candidates rows there. A {@link #heartbeat} that created or took over the node's
	 * row made every candidacy that earlier instances with this node id left this
	 * instance's, those of elections it no longer runs as well; without this call it
	 * would count as a live candidate there, and a partition group would keep handing it
	 * partitions that nothing on it leads.
	 * @param nodeId this node
	 * @param instanceId token of this running instance
	 * @param elections the elections this instance runs
	 */
	void leaveOtherElections(String nodeId, String instanceId, Collection<String> elections);

	/**
	 * Remove every candidates row of this running instance and its node's row, on a
	 * graceful stop.
	 * @param nodeId this node
	 * @param instanceId token of this running instance
	 */
	void removeCandidacies(String nodeId, String instanceId);

	/**
	 * Delete what nobody uses any more: the rows of nodes whose last heartbeat is older
	 * than {@code maxAge} (a crashed node's) and their candidates rows, then the lease
	 * and fence rows of elections that have no candidate left and whose lease row's own
	 * expiry (not its holder's session: a holder that left the election reads the lease
	 * no more) is more than {@code maxAge} ago. A node's row goes only once two calls of
	 * this repository found it stale at the same version: a forward step of the database
	 * clock makes every row look stale at once, and the row of a live node, whose
	 * candidacy keeps its leases, must stay (a lease deleted and created again is
	 * believed at once, while its holder still believes). The heartbeat calls this every
	 * ten leases, and a live node refreshes its row at least every half lease. Each
	 * election's term stays unique: a lease created again later starts from the database
	 * clock, far past any term of the deleted row.
	 * @param maxAge how long a row must have been unused
	 */
	void purge(Duration maxAge);

	/**
	 * List the candidates whose node's last heartbeat is within the given age (database
	 * clock).
	 * @param election election name
	 * @param maxAge maximum age of the last heartbeat
	 * @return the live candidates, ordered by node id
	 */
	List<Candidate> liveCandidates(String election, Duration maxAge);

	/**
	 * Run a callback in a transaction that first locks the lease's fence in share mode
	 * and checks that the given node holds the given term and the lease has not expired.
	 * Every change of holder must wait for that lock; the holder's renewals must not.
	 * @param <T> the callback's result type
	 * @param election election name
	 * @param nodeId this node
	 * @param term the term this node believes it holds
	 * @param maxHoldTime how long the database may keep a stalled transaction open before
	 * it drops the session
	 * @param callback the work
	 * @return the callback's result
	 * @throws NotLeaderException if the check fails; nothing is committed
	 */
	<T extends @Nullable Object> T runFenced(String election, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback);

}
