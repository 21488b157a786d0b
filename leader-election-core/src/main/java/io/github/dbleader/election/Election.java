package io.github.dbleader.election;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.github.dbleader.election.observation.FencedTransactionObservation;
import org.jspecify.annotations.Nullable;

/**
 * One named election as seen from this node. Obtain it from
 * {@link ElectionService#election(String)}; the first call creates the election and makes
 * this node a candidate.
 *
 * <p>
 * {@link #isLeader()} is cheap (no database access) and exact: it compares the monotonic
 * clock with the end of the current belief at every call. Everything else reads or writes
 * the database.
 */
public final class Election {

	private final ElectionLoop loop;

	private final String nodeId;

	private final LeaseRepository repository;

	private final ElectionSettings settings;

	private final Heartbeat heartbeat;

	/**
	 * Where fenced transactions are observed: the service's, which may change after this
	 * is made.
	 */
	private final Supplier<FencedTransactionObservation> fencedTransactionObservation;

	Election(ElectionLoop loop, String nodeId, LeaseRepository repository, ElectionSettings settings,
			Heartbeat heartbeat) {
		this(loop, nodeId, repository, settings, heartbeat, () -> FencedTransactionObservation.NONE);
	}

	Election(ElectionLoop loop, String nodeId, LeaseRepository repository, ElectionSettings settings,
			Heartbeat heartbeat, Supplier<FencedTransactionObservation> fencedTransactionObservation) {
		this.loop = loop;
		this.nodeId = nodeId;
		this.repository = repository;
		this.settings = settings;
		this.heartbeat = heartbeat;
		this.fencedTransactionObservation = fencedTransactionObservation;
	}

	/**
	 * @return the election name
	 */
	public String name() {
		return this.loop.election();
	}

	/**
	 * @return this node's id
	 */
	public String nodeId() {
		return this.nodeId;
	}

	/**
	 * Whether this node leads the election at this instant. Never touches the database.
	 * @return {@code true} if leader
	 */
	public boolean isLeader() {
		return this.loop.isLeader();
	}

	/**
	 * The term (fencing token) this node leads with.
	 * @return the term, or -1 if this node does not lead
	 */
	public long term() {
		return this.loop.leaderTerm();
	}

	/**
	 * Whether the election's database answered recently enough for leadership to be held.
	 * @return {@code false} once no statement of the heartbeat has succeeded for longer
	 * than {@code lease - guard}, because the database did not answer or because it
	 * refused them (see {@link #heartbeatFailure()} for which)
	 */
	public boolean isDatabaseReachable() {
		return this.loop.databaseReachable();
	}

	/**
	 * Whether this node waits for the election's database before it takes part: the
	 * database has not answered since the service started (see
	 * {@link DatabasePreparation}).
	 * @return {@code true} while waiting; {@link #isDatabaseReachable()} is then
	 * {@code false}
	 */
	public boolean isWaitingForDatabase() {
		return this.heartbeat.database().waiting();
	}

	/**
	 * Whether another running instance uses this node's id. While it does, this instance
	 * takes no part in the election (it never leads), so that two instances with one id
	 * cannot both believe they lead. Give every instance its own node id.
	 * @return {@code true} if the node id is in use by another instance
	 */
	public boolean isNodeIdInUseElsewhere() {
		return this.loop.nodeIdInUse();
	}

	/**
	 * The lease as this node's heartbeat last read it, without touching the database:
	 * what a view can show when the database does not answer in time. The heartbeat reads
	 * every lease of the node once per renew interval.
	 * @return the lease and how long ago it was read, or empty if it was never read
	 */
	public Optional<LeaseSighting> lastSeenLease() {
		return Optional.ofNullable(this.heartbeat.lastSeen(this.loop));
	}

	/**
	 * How long this node's heartbeat has been failing, without touching the database: for
	 * whatever reason, see {@link #heartbeatFailure()} for which.
	 * @return the time since the first failed round after the last round that succeeded,
	 * or empty if the heartbeat's last round succeeded
	 */
	public Optional<Duration> databaseUnreachableFor() {
		return Optional.ofNullable(this.heartbeat.database().unreachableFor());
	}

	/**
	 * Why this node's heartbeat fails, without touching the database: the database did
	 * not answer, or answered with an error (a deadlock, a missing privilege or
	 * table...), also while the node waits for the database at start-up. The heartbeat is
	 * the node's, so all of its elections answer alike.
	 * @return the kind and cause of the last failure and how long the heartbeat has
	 * failed, or empty if its last round succeeded
	 */
	public Optional<HeartbeatFailure> heartbeatFailure() {
		return Optional.ofNullable(this.heartbeat.database().failure());
	}

	/**
	 * Read who leads the election from the database.
	 * @return the leader, term and lease times
	 */
	public LeaderInfo leaderInfo() {
		return this.repository.find(name())
			.map((state) -> LeaderInfo.of(state, isLeader()))
			.orElseGet(() -> LeaderInfo.none(name()));
	}

	/**
	 * The candidates seen alive within the lease duration.
	 * @return live candidates ordered by node id
	 */
	public List<Candidate> candidates() {
		return this.repository.liveCandidates(name(), this.settings.leaseDuration());
	}

	/**
	 * Ask for leadership to move to the given node. The current leader steps down and
	 * hands the lease over at its next renewal; if no leader is alive, the target takes
	 * the lease when it expires. Nothing happens if the target already leads.
	 * @param targetNodeId the node that should lead
	 * @throws UnknownCandidateException if the node is not a live candidate
	 * @throws NoLeaseException if the election has no lease row yet
	 */
	public void forceLeader(String targetNodeId) {
		if (candidates().stream().noneMatch((candidate) -> candidate.nodeId().equals(targetNodeId))) {
			throw new UnknownCandidateException(name(), targetNodeId);
		}
		LeaderInfo current = leaderInfo();
		if (targetNodeId.equals(current.leaderId()) && current.handoverTo() == null) {
			return;
		}
		if (!this.repository.requestHandover(name(), targetNodeId)) {
			throw new NoLeaseException(name());
		}
	}

	/**
	 * Ask for a re-election: the current leader steps down at its next renewal, and
	 * another live candidate takes over (the old leader stays out for one lease unless it
	 * is alone).
	 * @return {@code true} if requested, {@code false} if the election has no leader
	 */
	public boolean forceReelection() {
		return this.repository.requestReelection(name());
	}

	/**
	 * Give up leadership now if this node leads; it stays a candidate but lets the others
	 * take over first.
	 */
	public void release() {
		this.heartbeat.release(this.loop, RevocationReason.RELEASED, true);
	}

	/**
	 * Run work that must only be committed by the current leader
	 * (docs/explanation/invariants.md, I5). The work runs in a transaction that first
	 * locks the lease's fence row in share mode and checks that this node holds its term
	 * and the lease has not expired; a take-over has to wait for the transaction to end,
	 * so a paused old leader cannot commit after a new one took over. This node's
	 * renewals do not wait for it, but every change of holder does (a forced hand-over or
	 * re-election too). On a Galera cluster the transaction also writes the fence row, so
	 * that certification aborts it, or the change of holder, when they overlap. Each call
	 * is one observation ({@code leader.election.fenced.transaction}) where the service
	 * has an {@linkplain ElectionService#setObservationRegistry observation registry}.
	 * @param <T> the result type
	 * @param callback the work
	 * @return the work's result
	 * @throws NotLeaderException if this node is not the leader; nothing was committed (a
	 * {@link FenceNotConfirmedException} if a Galera cluster aborted the transaction)
	 */
	public <T extends @Nullable Object> T runFenced(FencedCallback<T> callback) {
		long term = this.loop.leaderTerm();
		return this.fencedTransactionObservation.get().observe(name(), term, NotLeaderException.class, () -> {
			if (term < 0) {
				throw new NotLeaderException(name(), this.nodeId, "this node does not lead");
			}
			return this.repository.runFenced(name(), this.nodeId, term, this.settings.leaseDuration(), (fencedTerm) -> {
				// The database agreed; the local belief must still hold too.
				if (this.loop.leaderTerm() != fencedTerm) {
					throw new NotLeaderException(name(), this.nodeId, "leadership of term " + fencedTerm + " ended");
				}
				return callback.doInFence(fencedTerm);
			});
		});
	}

	ElectionLoop loop() {
		return this.loop;
	}

}
