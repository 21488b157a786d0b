package io.github.dbleader.election;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state machine of one election on one node. {@link #tick()} is the heartbeat, run
 * every renew interval by {@link ElectionService}; {@link #checkDeadline()} is the
 * watchdog that announces the end of a belief even when the heartbeat is stuck.
 *
 * <p>Safety rests on three rules (see DESIGN.md I2, I3, I6):
 * <ul>
 * <li>belief ends at {@code t_sent + lease - guard}, where {@code t_sent} is read from the
 * monotonic clock before the successful statement was sent; {@link #isLeader()} compares
 * with that deadline on every call;
 * <li>belief starts only after a statement of this node succeeded at the database;
 * <li>an expired lease is taken over only after this node saw the row at the same version
 * for a whole lease on its own clock.
 * </ul>
 */
final class ElectionLoop {

	private static final Logger logger = LoggerFactory.getLogger(ElectionLoop.class);

	private final String election;

	private final String nodeId;

	private final String instanceId;

	private final LeaseRepository repository;

	private final ElectionSettings settings;

	private final MonotonicClock clock;

	private final LeadershipListener listener;

	private final Executor notifier;

	private final long leaseNanos;

	private final long beliefNanos;

	/** Current belief; {@code null} when none. Read without locking by {@link #isLeader()}. */
	private volatile @Nullable Belief belief;

	/** Belief that was announced as granted and not yet revoked. Guarded by {@code this.beliefMonitor}. */
	private @Nullable Belief announced;

	private final Object beliefMonitor = new Object();

	/** Term this node holds at the database as far as it knows, or -1. Heartbeat thread only. */
	private long heldTerm = -1;

	private long observedVersion = -1;

	private long observedSinceNanos;

	private @Nullable String seenLeader;

	private long seenTerm = -1;

	private boolean seenAny;

	private volatile boolean databaseFailing;

	/** Whether another running instance uses this node id, as of the last heartbeat. */
	private volatile boolean nodeIdInUse;

	/**
	 * Whether this instance took the node id over from a stale instance less than a lease
	 * ago. Heartbeat thread only.
	 */
	private boolean inherited;

	private long inheritedAtNanos;

	private volatile long lastSuccessNanos;

	/** Whether a heartbeat is in progress, and since when ({@link System#nanoTime()}). */
	private volatile boolean ticking;

	private volatile long tickStartedNanos;

	private volatile boolean stopped;

	ElectionLoop(String election, String nodeId, String instanceId, LeaseRepository repository,
			ElectionSettings settings, MonotonicClock clock, LeadershipListener listener, Executor notifier) {
		this.election = election;
		this.nodeId = nodeId;
		this.instanceId = instanceId;
		this.repository = repository;
		this.settings = settings;
		this.clock = clock;
		this.listener = listener;
		this.notifier = notifier;
		this.leaseNanos = settings.leaseDuration().toNanos();
		this.beliefNanos = settings.leaseDuration().minus(settings.guard()).toNanos();
		this.lastSuccessNanos = clock.nanoTime();
	}

	String election() {
		return this.election;
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
	 * Whether the database answered within the belief window; {@code false} once it has been
	 * unreachable for longer than {@code lease - guard}, or once a heartbeat has been stuck in
	 * a call for that long (a driver that cannot time out its socket), so that health shows
	 * it even when the heartbeat thread hangs (I7).
	 * @return {@code true} if reachable
	 */
	boolean databaseReachable() {
		if (this.ticking && System.nanoTime() - this.tickStartedNanos >= this.beliefNanos) {
			return false;
		}
		return !this.databaseFailing || this.clock.nanoTime() - this.lastSuccessNanos < this.beliefNanos;
	}

	/**
	 * Whether another running instance uses this node's id, so that this one takes no part.
	 * @return {@code true} if the id is in use elsewhere
	 */
	boolean nodeIdInUse() {
		return this.nodeIdInUse;
	}

	/** One heartbeat: record this instance as a live candidate, then renew or compete. */
	synchronized void tick() {
		if (this.stopped) {
			return;
		}
		// Timed with System.nanoTime(), not the injected clock: the time only feeds metrics and
		// the check for a heartbeat stuck in a call, and must not consume readings of a fake
		// clock in tests.
		long started = System.nanoTime();
		this.tickStartedNanos = started;
		this.ticking = true;
		boolean succeeded = false;
		try {
			if (takePart()) {
				if (this.heldTerm >= 0) {
					leaderTick();
				}
				else {
					followerTick();
				}
			}
			databaseAnswered();
			succeeded = true;
		}
		catch (RuntimeException ex) {
			databaseFailed(ex);
		}
		finally {
			this.ticking = false;
		}
		Duration duration = Duration.ofNanos(System.nanoTime() - started);
		boolean outcome = succeeded;
		notify(() -> this.listener.heartbeat(this.election, this.nodeId, outcome, duration));
	}

	/**
	 * The candidate heartbeat. It comes first so that a second running instance with this
	 * node id never reaches the lease statements, where it would adopt the lease that names
	 * its id and believe alongside the first.
	 * @return whether this instance may take part in the election
	 */
	private boolean takePart() {
		Candidacy candidacy = this.repository.heartbeat(this.election, this.nodeId, this.instanceId, lease());
		if (candidacy == Candidacy.IN_USE) {
			if (!this.nodeIdInUse) {
				this.nodeIdInUse = true;
				logger.error("Election '{}': node id '{}' is in use by another running instance; this instance takes "
						+ "no part until that one stops. Give every instance its own leader-election.node-id",
						this.election, this.nodeId);
			}
			if (this.heldTerm >= 0) {
				// The row went stale while this instance could not reach the database, and
				// another instance with the same id took it over.
				endBelief(RevocationReason.NODE_ID_IN_USE);
				this.heldTerm = -1;
			}
			return false;
		}
		if (this.nodeIdInUse) {
			this.nodeIdInUse = false;
			logger.info("Election '{}': node id '{}' is no longer in use by another instance; taking part",
					this.election, this.nodeId);
		}
		if (candidacy == Candidacy.INHERITED) {
			this.inherited = true;
			this.inheritedAtNanos = this.clock.nanoTime();
		}
		return true;
	}

	/**
	 * Whether a lease that names this node id may belong to another instance: within a lease
	 * of taking the id over from a stale instance, which may be paused rather than dead. Its
	 * last renewal followed its last heartbeat, so after that lease its belief has ended.
	 * @param nowNanos the current monotonic time
	 * @return {@code true} while such a lease must be treated like any other node's
	 */
	private boolean mayBeAnotherInstancesLease(long nowNanos) {
		if (this.inherited && nowNanos - this.inheritedAtNanos >= this.leaseNanos) {
			this.inherited = false;
		}
		return this.inherited;
	}

	private void leaderTick() {
		long sent = this.clock.nanoTime();
		if (this.repository.renew(this.election, this.nodeId, this.heldTerm, lease())) {
			believe(this.heldTerm, sent);
			return;
		}
		// Not renewed: find out why before doing anything else.
		Optional<LeaseState> found = this.repository.find(this.election);
		if (found.isEmpty() || !this.nodeId.equals(found.get().leaderId()) || found.get().term() != this.heldTerm) {
			endBelief(RevocationReason.EXPIRED);
			this.heldTerm = -1;
			found.ifPresent(this::observe);
			return;
		}
		LeaseState state = found.get();
		String handoverTo = state.handoverTo();
		if (handoverTo != null) {
			handOver(handoverTo);
		}
		else if (state.reelectionRequested()) {
			stepDown(RevocationReason.REELECTION);
		}
		else if (!state.sameServer()) {
			// The database failed over: the old server's leases mean nothing for fencing (I4).
			endBelief(RevocationReason.SERVER_CHANGED);
			logger.warn("Election '{}': database server changed, re-acquiring leadership with a new term",
					this.election);
			long resent = this.clock.nanoTime();
			if (this.repository.reacquire(this.election, this.nodeId, this.heldTerm, lease())) {
				adoptOwnLease(resent);
			}
			else {
				this.heldTerm = -1;
			}
		}
	}

	private void handOver(String target) {
		if (target.equals(this.nodeId)) {
			// Asked to lead while leading: take a fresh term, which also clears the request.
			endBelief(RevocationReason.HANDED_OVER);
			long sent = this.clock.nanoTime();
			if (this.repository.reacquire(this.election, this.nodeId, this.heldTerm, lease())) {
				adoptOwnLease(sent);
			}
			else {
				this.heldTerm = -1;
			}
			return;
		}
		// Stop believing before the statement is sent, so the two never overlap (I6).
		endBelief(RevocationReason.HANDED_OVER);
		long term = this.heldTerm;
		this.heldTerm = -1;
		if (this.repository.handOver(this.election, this.nodeId, term, target, lease())) {
			logger.info("Election '{}': handed leadership over to '{}'", this.election, target);
		}
	}

	private void stepDown(RevocationReason reason) {
		endBelief(reason);
		long term = this.heldTerm;
		this.heldTerm = -1;
		this.repository.yield(this.election, this.nodeId, term);
	}

	private void adoptOwnLease(long sent) {
		Optional<LeaseState> state = this.repository.find(this.election);
		if (state.isPresent() && this.nodeId.equals(state.get().leaderId())) {
			this.heldTerm = state.get().term();
			observe(state.get());
			believe(this.heldTerm, sent);
		}
		else {
			this.heldTerm = -1;
		}
	}

	private void followerTick() {
		Optional<LeaseState> found = this.repository.find(this.election);
		long readAt = this.clock.nanoTime();
		if (found.isEmpty()) {
			long sent = this.clock.nanoTime();
			if (this.repository.create(this.election, this.nodeId, lease())) {
				adoptOwnLease(sent);
			}
			return;
		}
		LeaseState state = found.get();
		observe(state);
		if (this.nodeId.equals(state.leaderId()) && !mayBeAnotherInstancesLease(readAt)) {
			// The lease names this node (a hand-over to it, or a restart with the same id):
			// believe only once a statement of its own succeeds, and under a new term, so
			// that fenced work of an earlier process with this id can no longer commit.
			long sent = this.clock.nanoTime();
			if (this.repository.reacquire(this.election, this.nodeId, state.term(), lease())) {
				adoptOwnLease(sent);
			}
			return;
		}
		if (state.version() != this.observedVersion) {
			this.observedVersion = state.version();
			this.observedSinceNanos = readAt;
		}
		boolean mayTake;
		long version;
		if (state.vacant()) {
			mayTake = true;
			version = -1;
		}
		else {
			// Both the database and this node's own clock must agree that the lease ran out (I3).
			mayTake = state.expired() && readAt - this.observedSinceNanos >= this.leaseNanos;
			version = state.version();
		}
		if (mayTake) {
			long sent = this.clock.nanoTime();
			if (this.repository.takeOver(this.election, this.nodeId, version, lease())) {
				adoptOwnLease(sent);
			}
		}
	}

	/**
	 * Watchdog: announce the end of a belief whose deadline has passed, even if the heartbeat
	 * is stuck in a database call (I7).
	 */
	void checkDeadline() {
		synchronized (this.beliefMonitor) {
			Belief current = this.announced;
			if (current != null && this.clock.nanoTime() - current.deadlineNanos >= 0) {
				this.belief = null;
				this.announced = null;
				revoked(current.term,
						this.databaseFailing ? RevocationReason.DATABASE_UNREACHABLE : RevocationReason.EXPIRED);
			}
		}
	}

	/**
	 * Give up leadership: stop believing first, then make the lease vacant so another node
	 * takes over within a renew interval (I10).
	 * @param reason reason announced to listeners
	 * @param keepCompeting whether this node stays a candidate
	 */
	synchronized void release(RevocationReason reason, boolean keepCompeting) {
		endBelief(reason);
		if (!keepCompeting) {
			this.stopped = true;
		}
		long term = this.heldTerm;
		this.heldTerm = -1;
		try {
			if (term >= 0 && this.repository.yield(this.election, this.nodeId, term)) {
				logger.info("Election '{}': released leadership of term {}", this.election, term);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Election '{}': could not release the lease; it will expire on its own: {}", this.election,
					ex.toString());
		}
		if (!keepCompeting) {
			// Apart from the release: a node that failed to release must still leave the
			// candidates, or a forced hand-over to it would be accepted for a whole lease.
			try {
				this.repository.removeCandidate(this.election, this.nodeId, this.instanceId);
			}
			catch (RuntimeException ex) {
				logger.warn("Election '{}': could not leave the candidates; the entry ages out within a lease: {}",
						this.election, ex.toString());
			}
		}
	}

	/** Stop without touching the database: the lease expires on its own. */
	void halt() {
		this.stopped = true;
		endBelief(RevocationReason.SHUTDOWN);
	}

	private void observe(LeaseState state) {
		String leader = state.leaderId();
		if (!this.seenAny || !Objects.equals(leader, this.seenLeader) || state.term() != this.seenTerm) {
			String previous = this.seenLeader;
			this.seenAny = true;
			this.seenLeader = leader;
			this.seenTerm = state.term();
			long term = state.term();
			notify(() -> this.listener.leaderChanged(this.election, previous, leader, term));
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
					this.announced = extended;
					this.belief = extended;
				}
				return;
			}
			if (current != null) {
				// A lapsed belief the watchdog has not announced yet.
				this.belief = null;
				this.announced = null;
				revoked(current.term, RevocationReason.EXPIRED);
			}
			if (deadline - now <= 0) {
				return;
			}
			Belief granted = new Belief(term, deadline);
			this.belief = granted;
			this.announced = granted;
			logger.info("Election '{}': leadership granted to '{}' with term {}", this.election, this.nodeId, term);
			notify(() -> this.listener.granted(this.election, this.nodeId, term));
		}
	}

	private void endBelief(RevocationReason reason) {
		synchronized (this.beliefMonitor) {
			this.belief = null;
			Belief current = this.announced;
			this.announced = null;
			if (current != null) {
				revoked(current.term, reason);
			}
		}
	}

	private void revoked(long term, RevocationReason reason) {
		logger.info("Election '{}': leadership of term {} revoked from '{}' ({})", this.election, term, this.nodeId,
				reason);
		notify(() -> this.listener.revoked(this.election, this.nodeId, term, reason));
	}

	private void databaseAnswered() {
		this.lastSuccessNanos = this.clock.nanoTime();
		if (this.databaseFailing) {
			this.databaseFailing = false;
			logger.info("Election '{}': database reachable again", this.election);
		}
	}

	private void databaseFailed(RuntimeException ex) {
		if (!this.databaseFailing) {
			this.databaseFailing = true;
			logger.warn("Election '{}': database unreachable, leadership ends at the latest when the lease would: {}",
					this.election, ex.toString());
		}
		else {
			logger.debug("Election '{}': database still unreachable", this.election, ex);
		}
	}

	private void notify(Runnable callback) {
		try {
			this.notifier.execute(() -> {
				try {
					callback.run();
				}
				catch (RuntimeException ex) {
					logger.warn("Election '{}': leadership listener failed", this.election, ex);
				}
			});
		}
		catch (RuntimeException ex) {
			logger.warn("Election '{}': could not notify leadership listener", this.election, ex);
		}
	}

	private Duration lease() {
		return this.settings.leaseDuration();
	}

	private record Belief(long term, long deadlineNanos) {
	}

}
