package io.github.dbleader.election;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state machine of one election on one node. It sends no statement itself: the node's
 * {@link Heartbeat} sends the statements of all elections at once, hands each state
 * machine what the database answered, and carries out the one change of holder it may ask
 * for ({@link LeaseChange}). The watchdog ({@link AnnouncedBeliefs#check}) announces the
 * end of a belief even when the heartbeat is stuck.
 *
 * <p>
 * Safety rests on three rules (see docs/explanation/invariants.md, I2, I3, I6):
 * <ul>
 * <li>belief ends at {@code t_sent + lease - guard}, where {@code t_sent} is read from
 * the monotonic clock before the successful statement was sent; {@link #isLeader()}
 * compares with that deadline on every call;
 * <li>belief starts or is extended only after a statement of this node succeeded at the
 * database: a refresh of the node's session counts for an election only if the read after
 * it shows the session moved on, the election's row still held with the same term,
 * nothing pending, same server;
 * <li>an expired lease is taken over only after this node saw the row and its holder's
 * session at the same versions for a whole lease on its own clock.
 * </ul>
 *
 * <p>
 * The heartbeat holds this object's monitor from {@link #decide} until the change it
 * returned was carried out, and so does {@link Heartbeat#release}, so that a release
 * never interleaves with a change of holder of the same election.
 */
final class ElectionLoop {

	private static final Logger logger = LoggerFactory.getLogger(ElectionLoop.class);

	/**
	 * A refused creation happens once when another node created the lease first; three
	 * are a fault.
	 */
	private static final int REFUSED_CREATIONS_WARNED = 3;

	private final String election;

	private final String nodeId;

	private final MonotonicClock clock;

	private final LeadershipListener listener;

	private final Executor notifier;

	private final DatabaseStatus database;

	private final TakeOverPolicy takeOverPolicy;

	private final long leaseNanos;

	private final long beliefNanos;

	/**
	 * Current belief; {@code null} when none. Read without locking by
	 * {@link #isLeader()}.
	 */
	private volatile @Nullable Belief belief;

	/**
	 * Belief that was announced as granted and not yet revoked. Written under
	 * {@code this.beliefMonitor}; volatile so that the watchdog passes the elections this
	 * node does not lead without taking it.
	 */
	private volatile @Nullable Belief announced;

	private final Object beliefMonitor = new Object();

	/**
	 * The node's elections with an announced belief; this one while {@link #announced} is
	 * set.
	 */
	private final AnnouncedBeliefs believing;

	/** Term this node holds at the database as far as it knows, or -1. */
	private long heldTerm = -1;

	/**
	 * The highest term this running instance has held, or -1: terms only grow, so a lease
	 * that names this node id with a higher one is another instance's (which took the id
	 * over).
	 */
	private long highestHeldTerm = -1;

	/**
	 * Version of this node's session (its node row) as last read with the held lease, or
	 * -1: a refresh of the session counts only if it moved the session on from this
	 * version.
	 */
	private long heldVersion = -1;

	/**
	 * Refreshes of the session sent since {@link #heldVersion} was read whose outcome is
	 * unknown (they, or the read after them, failed): each may have moved it one version
	 * on.
	 */
	private int unconfirmedRenewals;

	/**
	 * When the earliest of the {@link #unconfirmedRenewals} was sent (monotonic clock).
	 */
	private long firstUnconfirmedSentNanos;

	/**
	 * What this node has watched of the lease since {@link #observedSinceNanos} (as in a
	 * {@link LeaseObservation}): the row's version, its holder and the holder's session
	 * version, or nothing yet. Fields rather than an object: a node with thousands of
	 * elections watches most of them move on every round.
	 */
	private boolean watching;

	private long watchedVersion;

	private @Nullable String watchedHolder;

	private long watchedHolderVersion;

	/**
	 * Whether the watched row was last acquired on the server that answered the read: a
	 * read from another server (a failover) starts the watch again.
	 */
	private boolean watchedOnSameServer;

	private long observedSinceNanos;

	/** Which server answers this election's reads, and since when. */
	private final AnsweringServer server;

	private @Nullable String seenLeader;

	private long seenTerm = -1;

	private boolean seenAny;

	/** Whether this instance has its own candidates row in the election. */
	private boolean candidate;

	/**
	 * Rounds in a row whose creation of the lease was refused: the reads keep missing it.
	 */
	private int refusedCreations;

	/** Whether another running instance uses this node id, as of the last heartbeat. */
	private volatile boolean nodeIdInUse;

	/**
	 * Whether this instance took the node id over from a stale instance less than a lease
	 * ago.
	 */
	private boolean inherited;

	private long inheritedAtNanos;

	private volatile boolean stopped;

	/**
	 * Whether this node campaigns: standing down, it takes no lease and gives back one
	 * that names it ({@link #campaign}); guarded by this object's monitor.
	 */
	private boolean campaigning = true;

	/**
	 * Whether a candidate of a higher rank may ask for this election's lease
	 * ({@link #placeByRank}): ordinary elections, not the partitions of a group, which
	 * their balancing places.
	 */
	private volatile boolean placedByRank;

	/**
	 * How many times this node gave the election up ({@link #relinquish}); guarded by
	 * this object's monitor.
	 */
	private int relinquished;

	/**
	 * The lease as the answer to this election's last change of holder showed it, and
	 * when.
	 */
	private volatile @Nullable Sighting lastSeen;

	/**
	 * The term held as the heartbeat's current round started, or -1; guarded by this
	 * object's monitor.
	 */
	private long roundTerm = -1;

	/**
	 * @param believing the node's elections whose belief was announced and not revoked
	 * yet, which this one joins and leaves as it does: the watchdog checks those only
	 */
	ElectionLoop(String election, String nodeId, ElectionSettings settings, MonotonicClock clock,
			LeadershipListener listener, Executor notifier, DatabaseStatus database, TakeOverPolicy takeOverPolicy,
			AnnouncedBeliefs believing) {
		this.believing = believing;
		this.election = election;
		this.takeOverPolicy = takeOverPolicy;
		this.nodeId = nodeId;
		this.clock = clock;
		this.listener = listener;
		this.notifier = notifier;
		this.database = database;
		this.leaseNanos = settings.leaseDuration().toNanos();
		this.beliefNanos = settings.leaseDuration().minus(settings.guard()).toNanos();
		this.server = new AnsweringServer(this.leaseNanos);
	}

	String election() {
		return this.election;
	}

	/**
	 * Let a candidate of a higher rank ask for this election's lease, or not.
	 * @param placedByRank whether leadership follows the ranks
	 */
	void placeByRank(boolean placedByRank) {
		this.placedByRank = placedByRank;
	}

	/**
	 * Whether, as of this read, this node may ask the holder of the lease to hand it
	 * over, if it outranks the holder: the election follows the ranks, this node
	 * campaigns and holds nothing, and the lease is another node's, alive on its session,
	 * granted by the server that answered, and with no request pending (an operator's is
	 * never replaced). Call while holding this object's monitor, after {@link #decide}
	 * for the same read.
	 * @param state the lease as read
	 * @return whether to ask, rank permitting
	 */
	boolean mayAskToLead(LeaseState state) {
		return this.placedByRank && this.campaigning && !this.stopped && this.heldTerm < 0 && this.belief == null
				&& state.leaderId() != null && !state.leaderId().equals(this.nodeId) && !state.expired()
				&& state.holderVersion() >= 0 && !state.sessionEnded() && state.sameServer()
				&& state.handoverTo() == null && !state.reelectionRequested();
	}

	/**
	 * Whether this node leads now: its belief's deadline has not passed.
	 * @return {@code true} if leader
	 */
	boolean isLeader() {
		Belief current = this.belief;
		return current != null && this.clock.nanoTime() - current.deadlineNanos < 0;
	}

	/**
	 * The term of the current belief.
	 * @return the term, or -1 if this node does not lead
	 */
	long leaderTerm() {
		Belief current = this.belief;
		return (current != null && this.clock.nanoTime() - current.deadlineNanos < 0) ? current.term : -1;
	}

	/**
	 * Whether the database answered within the belief window (see
	 * {@link DatabaseStatus#reachable()}).
	 * @return {@code true} if reachable
	 */
	boolean databaseReachable() {
		return this.database.reachable();
	}

	/**
	 * Whether another running instance uses this node's id, so that this one takes no
	 * part.
	 * @return {@code true} if the id is in use elsewhere
	 */
	boolean nodeIdInUse() {
		return this.nodeIdInUse;
	}

	boolean stopped() {
		return this.stopped;
	}

	/**
	 * @return whether this instance has its own candidates row in the election
	 */
	synchronized boolean candidate() {
		return this.candidate;
	}

	/**
	 * This round's candidacy. It comes first so that a second running instance with this
	 * node id never reaches the lease statements, where it would adopt the lease that
	 * names its id and believe alongside the first.
	 * @param candidacy what the node's row said (the caller joined the election first),
	 * or {@code null} if this instance takes no part this round
	 * @return whether this instance takes part in the election this round
	 */
	synchronized boolean candidacy(@Nullable Candidacy candidacy) {
		if (candidacy == null || this.stopped) {
			this.candidate = false;
			return false;
		}
		if (candidacy == Candidacy.IN_USE) {
			this.candidate = false;
			this.nodeIdInUse = true;
			if (this.heldTerm >= 0) {
				// The row went stale while this instance could not reach the database,
				// and another instance with the same id took it over.
				endBelief(RevocationReason.NODE_ID_IN_USE);
				dropHold();
			}
			return false;
		}
		this.candidate = true;
		this.nodeIdInUse = false;
		if (candidacy != Candidacy.HELD && this.heldTerm >= 0) {
			// The node's row was gone, or another instance's: the session the lease lived
			// on ended, and a follower may have taken the lease without writing that row.
			// Only a re-acquire of its own makes it this node's again.
			endBelief(RevocationReason.EXPIRED);
			dropHold();
		}
		// A take-over of the node id is the node's: the heartbeat tells every election
		// (nodeIdTakenOverAt), those joined since as well.
		return true;
	}

	/**
	 * Campaign in the election, or stand down: standing down ends the belief at once, and
	 * from then on this node creates no lease, takes none over and re-acquires none; the
	 * lease it holds, or one that names it (a hand-over to it), it gives back at its next
	 * decision, in the heartbeat's batch of yields (or the stop releases it). It goes on
	 * watching the lease: I3 asks for a whole lease seen unchanged, not for a whole lease
	 * of campaigning, so once it campaigns again it may take at once a lease that expired
	 * meanwhile.
	 * @param campaigning {@code false} to stand down
	 */
	synchronized void campaign(boolean campaigning) {
		if (this.campaigning && !campaigning) {
			// Counts as giving the election up: a change decided before that takes the
			// lease is not adopted (relinquishments).
			this.relinquished++;
			endBelief(RevocationReason.STOOD_DOWN);
		}
		this.campaigning = campaigning;
	}

	/**
	 * A heartbeat round starts: keep the term held, which its refresh of the session
	 * renews.
	 * @return whether a term is held
	 */
	synchronized boolean startRound() {
		this.roundTerm = this.stopped ? -1 : this.heldTerm;
		return this.roundTerm >= 0;
	}

	/**
	 * The term held as the current heartbeat round started ({@link #startRound}). Call
	 * while holding this object's monitor.
	 * @return the term, or -1
	 */
	long roundTerm() {
		return this.roundTerm;
	}

	/**
	 * A refresh of the session was sent but its outcome is unknown (it, or the read after
	 * it, failed): it may have moved the session one version on, and a later read that
	 * shows it counts it only from when it was sent.
	 * @param sentNanos when it was sent (monotonic clock)
	 */
	synchronized void renewalOutcomeUnknown(long sentNanos) {
		if (this.unconfirmedRenewals++ == 0) {
			this.firstUnconfirmedSentNanos = sentNanos;
		}
	}

	/**
	 * Decide from this round's read of the lease. Must be called, and the change it
	 * returns carried out, while holding this object's monitor.
	 * @param renewedTerm the term held when this round's refresh of the session was sent,
	 * which completed without error, or -1
	 * @param renewSentNanos when the refresh was sent (monotonic clock)
	 * @param state the lease as read after the renewal, or {@code null} if it has no row
	 * @param readAtNanos when the read returned (monotonic clock)
	 * @return the change of holder to carry out now, or {@code null}
	 */
	@Nullable LeaseChange decide(long renewedTerm, long renewSentNanos, @Nullable LeaseState state, long readAtNanos) {
		if (this.stopped) {
			return null;
		}
		if (state != null) {
			// A read without the lease says nothing of where it was acquired.
			if (this.server.readShows(state, readAtNanos)) {
				this.watching = false;
			}
			if (this.refusedCreations >= REFUSED_CREATIONS_WARNED) {
				logger.info("Election '{}': the lease shows again in this node's reads", this.election);
			}
			this.refusedCreations = 0;
		}
		return (this.heldTerm >= 0) ? leaderDecision(renewedTerm, renewSentNanos, state, readAtNanos)
				: followerDecision(state, readAtNanos);
	}

	/**
	 * The read that decided this round came from the given server, although it showed no
	 * lease of this election, or the election did not decide on it (no candidacy this
	 * round, a yield under way): a failover holds this election back for a lease from
	 * that read as well, not from the first read that shows its lease (a join the new
	 * server lost, seen again a round later). Call while holding this object's monitor.
	 * @param server the server that answered the read, as its leases name it
	 * @param readAtNanos when the read returned (monotonic clock)
	 */
	void serverAnswered(String server, long readAtNanos) {
		if (!this.stopped && this.server.answered(server, readAtNanos)) {
			this.watching = false;
		}
	}

	/**
	 * Whether this election's reads showed another server than before since the last call
	 * (a failover): the heartbeat says so once for the node.
	 * @return {@code true} once per change seen
	 */
	boolean takeServerChange() {
		return this.server.takeChange();
	}

	private @Nullable LeaseChange leaderDecision(long renewedTerm, long sentNanos, @Nullable LeaseState state,
			long readAtNanos) {
		if (state == null || !this.nodeId.equals(state.leaderId()) || state.term() != this.heldTerm) {
			endBelief(RevocationReason.EXPIRED);
			dropHold();
			if (state != null) {
				observe(state);
			}
			return null;
		}
		if (this.server.holdsBack(state, readAtNanos)) {
			// Not even a forced change yet: the new server may have lost a newer holder's
			// lease (see below), and the node this one hands over to would believe at
			// once.
			if (this.announced != null) {
				logger.warn("Election '{}': database server changed, re-acquiring leadership with a new term once a "
						+ "lease has passed", this.election);
			}
			// Once, as the belief ends (the rounds within the lease after it come here
			// too).
			if (this.announced != null) {
				this.server.tellAgain();
			}
			endBelief(RevocationReason.SERVER_CHANGED);
			this.heldVersion = -1;
			this.unconfirmedRenewals = 0;
			return null;
		}
		String handoverTo = state.handoverTo();
		if (handoverTo != null) {
			// Stop believing before the statement is sent, so the two never overlap (I6).
			endBelief(RevocationReason.HANDED_OVER);
			if (handoverTo.equals(this.nodeId)) {
				// Asked to lead while leading: take a fresh term, which also clears the
				// request.
				return LeaseChange.reacquire(this.heldTerm);
			}
			long term = this.heldTerm;
			dropHold();
			return LeaseChange.handOver(term, handoverTo);
		}
		if (state.reelectionRequested()) {
			endBelief(RevocationReason.REELECTION);
			long term = this.heldTerm;
			dropHold();
			return LeaseChange.yield(term);
		}
		if (!this.campaigning) {
			// Stood down while holding the lease, or a yield of it waited for fenced work
			// and was not applied: give it back (again) instead of believing.
			endBelief(RevocationReason.STOOD_DOWN);
			long term = this.heldTerm;
			dropHold();
			return LeaseChange.yield(term);
		}
		if (!state.sameServer()) {
			// The database failed over a lease ago or more: the old server's leases mean
			// nothing for fencing (I4), so a new term.
			return LeaseChange.reacquire(this.heldTerm);
		}
		// Held, nothing pending, same server. Only this node's refreshes move its session
		// on: the one sent at sentNanos, and the unconfirmed ones before it. A session
		// that did not move was not refreshed as far as this read knows (the server
		// answering the refresh was not the one answering the read); one that moved shows
		// a read that includes the refresh, and so every take-over ordered before it.
		long moved = state.holderVersion() - this.heldVersion;
		boolean renewed = renewedTerm == this.heldTerm && this.heldVersion >= 0 && moved >= 1
				&& moved <= 1 + this.unconfirmedRenewals;
		// A read that shows fewer moves than refreshes were sent may not include this
		// round's (a Galera node's own data, answering when the causal read waits too
		// long): what it shows may be an unconfirmed refresh only, which counts from when
		// it was sent.
		long from = (moved == 1 + this.unconfirmedRenewals) ? sentNanos : this.firstUnconfirmedSentNanos;
		this.heldVersion = state.holderVersion();
		this.unconfirmedRenewals = 0;
		if (renewed) {
			believe(this.heldTerm, from);
		}
		return null;
	}

	private @Nullable LeaseChange followerDecision(@Nullable LeaseState state, long readAt) {
		if (state == null) {
			return this.campaigning ? LeaseChange.create() : null;
		}
		observe(state);
		boolean tooRecent = this.server.holdsBack(state, readAt);
		if (this.nodeId.equals(state.leaderId()) && !mayBeAnotherInstancesLease(readAt) && !tooRecent) {
			// The lease names this node (a hand-over to it, or a restart with the same
			// id): believe only once a statement of its own succeeds, and under a new
			// term, so that fenced work of an earlier process with this id can no longer
			// commit. An operator's request on it is carried out, not cleared by the
			// re-acquire (I6).
			String handoverTo = state.handoverTo();
			if (handoverTo != null && !handoverTo.equals(this.nodeId)) {
				return LeaseChange.handOver(state.term(), handoverTo);
			}
			if (state.reelectionRequested() || !this.campaigning) {
				// Standing down, a hand-over to this node goes on at once: the lease is
				// vacant for the others rather than waiting a lease for its expiry.
				return LeaseChange.yield(state.term());
			}
			return LeaseChange.reacquire(state.term());
		}
		watch(state, readAt);
		if (!this.campaigning) {
			return null;
		}
		if (state.vacant()) {
			return (!tooRecent && mayTakeOver(state)) ? LeaseChange.takeOver(LeaseObservation.vacant()) : null;
		}
		// Both the database and this node's own clock must agree that the lease ran out
		// (I3).
		if (state.expired() && readAt - this.observedSinceNanos >= this.leaseNanos && mayTakeOver(state)) {
			return LeaseChange.takeOver(LeaseObservation.of(state));
		}
		return null;
	}

	/**
	 * Keep watching the lease with a read of a round that could not refresh this node's
	 * row (the database stalls writes): a follower's whole-lease observation (I3) goes
	 * on, nothing is decided. Call while holding this object's monitor.
	 * @param state the lease as read, possibly an older view than the cluster's latest
	 * @param readAtNanos when the read returned (monotonic clock)
	 */
	void watch(LeaseState state, long readAtNanos) {
		if (this.server.note(state.server(), readAtNanos)) {
			this.watching = false;
		}
		if (this.stopped || this.heldTerm >= 0) {
			return;
		}
		// Versions only grow: a view that was stale here and is current at the deciding
		// read shows a row and a session that stayed unchanged all along, and otherwise
		// the deciding read shows another version, which starts the observation again.
		// Not across a failover: a promoted replica that lost the newest writes may show
		// exactly the versions watched before an outage, while the holder went on
		// renewing on the old server meanwhile; the watch starts again with the first
		// read of the new server.
		if (!this.watching || this.watchedVersion != state.version()
				|| !Objects.equals(this.watchedHolder, state.leaderId())
				|| this.watchedHolderVersion != state.holderVersion()
				|| this.watchedOnSameServer != state.sameServer()) {
			this.watching = true;
			this.watchedVersion = state.version();
			this.watchedHolder = state.leaderId();
			this.watchedHolderVersion = state.holderVersion();
			this.watchedOnSameServer = state.sameServer();
			this.observedSinceNanos = readAtNanos;
		}
	}

	private boolean mayTakeOver(LeaseState state) {
		try {
			return this.takeOverPolicy.mayTakeOver(state);
		}
		catch (RuntimeException ex) {
			// A failing policy must not stop the election from ever filling a free lease.
			logger.warn("Election '{}': take-over policy failed; taking over", this.election, ex);
			return true;
		}
	}

	/**
	 * Whether a lease that names this node id may belong to another instance: within a
	 * lease of taking the id over from a stale instance, which may be paused rather than
	 * dead (or which the database clock made look stale). The take-over claimed that
	 * instance's candidacies before this started counting, and its renewals count only
	 * once its read of the leases shows them, which a claimed candidacy no longer does:
	 * its last renewal that counted was sent before, so after that lease its belief has
	 * ended.
	 * @param nowNanos the current monotonic time
	 * @return {@code true} while such a lease must be treated like any other node's
	 */
	/**
	 * This running instance took the node id over from another one at that time (the
	 * heartbeat tells every election each round for a lease after, elections joined since
	 * as well). Call while holding this object's monitor.
	 * @param atNanos when (monotonic clock)
	 */
	void nodeIdTakenOverAt(long atNanos) {
		if (!this.inherited || atNanos - this.inheritedAtNanos > 0) {
			this.inherited = true;
			this.inheritedAtNanos = atNanos;
		}
	}

	private boolean mayBeAnotherInstancesLease(long nowNanos) {
		if (this.inherited && nowNanos - this.inheritedAtNanos >= this.leaseNanos) {
			this.inherited = false;
		}
		return this.inherited;
	}

	/**
	 * A change that makes this node the holder (create, take-over, re-acquire) was
	 * applied; adopt the row read right after it. Call while holding this object's
	 * monitor.
	 * @param sentNanos when the change was sent (monotonic clock)
	 * @param state the row read after the change, or {@code null}
	 */
	void acquired(long sentNanos, @Nullable LeaseState state) {
		if (state != null) {
			this.lastSeen = new Sighting(state, this.clock.nanoTime());
			if (this.server.differsFrom(state.server())) {
				// Decided on one server's read, applied on another (the database failed
				// over between them): that one may have lost a newer holder's lease (I3).
				if (this.server.note(state.server(), this.clock.nanoTime())) {
					this.watching = false;
				}
				dropHold();
				return;
			}
		}
		if (state != null && this.nodeId.equals(state.leaderId()) && !this.stopped && !livesOnAnotherSession(state)) {
			this.heldTerm = state.term();
			this.highestHeldTerm = Math.max(this.highestHeldTerm, this.heldTerm);
			this.heldVersion = state.holderVersion();
			this.unconfirmedRenewals = 0;
			observe(state);
			believe(this.heldTerm, sentNanos);
		}
		else {
			dropHold();
		}
	}

	/**
	 * Whether a lease that names this node id, just acquired, lives on no session of this
	 * running instance: its decision was made before another instance took the node id
	 * over (a pause between the read and the statement), and the row matched because it
	 * names the same id. That instance adopts the lease a lease after taking the id over;
	 * this one must not believe meanwhile (I3).
	 */
	private static boolean livesOnAnotherSession(LeaseState state) {
		return state.holderVersion() < 0 || state.sessionEnded();
	}

	/**
	 * A hand-over or yield of the lease of the given term was not applied: the lease may
	 * still be this node's, with the request that asked for the change still pending (its
	 * fence row was busy with fenced work). Hold the term again, without believing, so
	 * that the next read decides as a holder: the change again while the request stands,
	 * a renewal that counts once it no longer does (renewals skip rows with a request),
	 * or the end of the hold if the row moved on. Call while holding this object's
	 * monitor.
	 * @param term the term the change was conditional on
	 */
	void changeNotApplied(long term) {
		if (!this.stopped && this.heldTerm < 0) {
			this.heldTerm = term;
			// Unknown: a renewal counts only from a version read while holding.
			this.heldVersion = -1;
			this.unconfirmedRenewals = 0;
		}
	}

	/**
	 * A change that would have made this node the holder was not applied, or its outcome
	 * is unknown: hold nothing. A lease it may still have written names this node and is
	 * re-acquired under a new term before it is believed.
	 */
	void notAcquired() {
		dropHold();
	}

	/**
	 * The lease this node's read did not show could not be created: it exists, and the
	 * read missed it because this instance's candidates row is gone (a failover to a
	 * replica that had not applied the join, or another node created it first). Join
	 * again at the next round, which costs nothing where the row is there. Call while
	 * holding this object's monitor.
	 * @param reported whether the repository reported that the database refuses a row of
	 * the election ({@link LeaseRepository#refusesRowsOf})
	 */
	void creationRefused(boolean reported) {
		dropHold();
		this.candidate = false;
		// Where the repository reported the database refusing the election's row, that is
		// the cause, said once already.
		if (!reported && ++this.refusedCreations == REFUSED_CREATIONS_WARNED) {
			logger.warn("Election '{}': the lease exists but this node's reads do not show it ({} rounds in a row), "
					+ "although the node joins the election every round; '{}' takes no part in it until they do "
					+ "(its candidates row missing or naming another instance with this node id)", this.election,
					REFUSED_CREATIONS_WARNED, this.nodeId);
		}
	}

	/**
	 * Watchdog: announce the end of a belief whose deadline has passed, even if the
	 * heartbeat is stuck in a database call (I7).
	 */
	void checkDeadline() {
		checkDeadline(this.clock.nanoTime());
	}

	/**
	 * Watchdog, for many elections at once: the same, with the clock read once for all.
	 * @param nowNanos the monotonic clock, read before this call
	 * @return how long the announced belief still lasts, or {@link Long#MAX_VALUE} if
	 * none does
	 */
	long checkDeadline(long nowNanos) {
		// No monitor while the belief lasts: a node with thousands of elections may lead
		// all of them.
		Belief unlocked = this.announced;
		if (unlocked == null) {
			return Long.MAX_VALUE;
		}
		if (nowNanos - unlocked.deadlineNanos < 0) {
			return unlocked.deadlineNanos - nowNanos;
		}
		synchronized (this.beliefMonitor) {
			Belief current = this.announced;
			if (current == null) {
				return Long.MAX_VALUE;
			}
			long now = this.clock.nanoTime();
			if (now - current.deadlineNanos < 0) {
				// Extended meanwhile.
				return current.deadlineNanos - now;
			}
			this.belief = null;
			announce(null);
			revoked(current.term,
					this.database.failing() ? RevocationReason.DATABASE_UNREACHABLE : RevocationReason.EXPIRED);
			return Long.MAX_VALUE;
		}
	}

	/**
	 * Give up leadership: stop believing first. Call while holding this object's monitor;
	 * the caller then makes the returned lease vacant so another node takes over within a
	 * renew interval (I10).
	 * @param reason reason announced to listeners
	 * @param keepCompeting whether this node stays a candidate
	 * @return the term to give up, or -1 if this node holds none
	 */
	long relinquish(RevocationReason reason, boolean keepCompeting) {
		this.relinquished++;
		endBelief(reason);
		if (!keepCompeting) {
			this.stopped = true;
		}
		long term = this.heldTerm;
		dropHold();
		return term;
	}

	/**
	 * The highest term this running instance has held in the election, or -1 if none.
	 * Call while holding this object's monitor.
	 * @return the term
	 */
	long highestHeldTerm() {
		return this.highestHeldTerm;
	}

	/**
	 * How many times this node gave the election up so far: a change of holder decided
	 * before a later give-up must not make this node the holder again. Call while holding
	 * this object's monitor.
	 * @return the count
	 */
	int relinquishments() {
		return this.relinquished;
	}

	/** Stop without touching the database: the lease expires on its own. */
	void halt() {
		this.stopped = true;
		endBelief(RevocationReason.SHUTDOWN);
	}

	private void dropHold() {
		this.heldTerm = -1;
		this.heldVersion = -1;
		this.unconfirmedRenewals = 0;
	}

	private void observe(LeaseState state) {
		String leader = state.leaderId();
		if (!this.seenAny || !Objects.equals(leader, this.seenLeader) || state.term() != this.seenTerm) {
			String previous = this.seenLeader;
			this.seenAny = true;
			this.seenLeader = leader;
			this.seenTerm = state.term();
			long term = state.term();
			this.notifier.execute(() -> this.listener.leaderChanged(this.election, previous, leader, term));
		}
	}

	private void believe(long term, long sentNanos) {
		long deadline = sentNanos + this.beliefNanos;
		synchronized (this.beliefMonitor) {
			Belief current = this.announced;
			long now = this.clock.nanoTime();
			if (current != null && current.term == term && now - current.deadlineNanos < 0) {
				if (deadline - current.deadlineNanos > 0) {
					Belief extended = new Belief(term, deadline);
					announce(extended);
					this.belief = extended;
				}
				return;
			}
			if (current != null) {
				// A lapsed belief the watchdog has not announced yet.
				this.belief = null;
				announce(null);
				revoked(current.term, RevocationReason.EXPIRED);
			}
			if (deadline - now <= 0) {
				return;
			}
			Belief granted = new Belief(term, deadline);
			this.belief = granted;
			announce(granted);
			logger.info("Election '{}': leadership granted to '{}' with term {}", this.election, this.nodeId, term);
			this.notifier.execute(() -> this.listener.granted(this.election, this.nodeId, term));
		}
	}

	private void endBelief(RevocationReason reason) {
		synchronized (this.beliefMonitor) {
			this.belief = null;
			Belief current = this.announced;
			announce(null);
			if (current != null) {
				revoked(current.term, reason);
			}
		}
	}

	/**
	 * Set the announced belief, and whether the watchdog checks this election; under
	 * {@code beliefMonitor}.
	 */
	private void announce(@Nullable Belief announced) {
		Belief previous = this.announced;
		this.announced = announced;
		// Joined at a grant and left at a revocation, not touched by every extension.
		if (previous == null && announced != null) {
			this.believing.granted(this, announced.deadlineNanos);
		}
		else if (previous != null && announced == null) {
			this.believing.ended(this);
		}
	}

	private void revoked(long term, RevocationReason reason) {
		logger.info("Election '{}': leadership of term {} revoked from '{}' ({})", this.election, term, this.nodeId,
				reason);
		this.notifier.execute(() -> this.listener.revoked(this.election, this.nodeId, term, reason));
	}

	/**
	 * The lease as this election last saw it itself, without asking the database: in the
	 * answer to a change of holder it made. The heartbeat's reads are kept by the
	 * heartbeat ({@link Heartbeat#lastSeen}).
	 * @return the lease and how long ago it was read, or {@code null} if never
	 */
	@Nullable LeaseSighting lastSeen() {
		Sighting seen = this.lastSeen;
		return (seen != null)
				? new LeaseSighting(seen.state, Duration.ofNanos(this.clock.nanoTime() - seen.readAtNanos)) : null;
	}

	private record Belief(long term, long deadlineNanos) {
	}

	private record Sighting(LeaseState state, long readAtNanos) {
	}

}
