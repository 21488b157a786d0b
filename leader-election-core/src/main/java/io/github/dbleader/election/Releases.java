package io.github.dbleader.election;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How one node gives elections up at the database: the releases of its leases and the
 * removals of its candidacies, sent at once, sent again at the next heartbeats where they
 * failed, and carried out again after a failover that may have lost them. The heartbeat
 * calls it at fixed points of its round ({@link #beforeRead}, {@link #afterRefresh},
 * {@link #afterRead}) and asks it which elections must decide nothing while their release
 * is pending.
 */
final class Releases {

	private static final Logger logger = LoggerFactory.getLogger(Releases.class);

	/**
	 * How many leases a leave is remembered for, to be carried out again after a failover
	 * that lost it: longer than a replica lags behind where a failover is safe at all.
	 */
	static final int LEFT_REMEMBERED = 10;

	private final String nodeId;

	private final String instanceId;

	private final LeaseRepository repository;

	private final MonotonicClock clock;

	private final long rememberedNanos;

	/** Elections left whose candidates row could not be removed yet. */
	private final Set<String> pendingRemovals = ConcurrentHashMap.newKeySet();

	/**
	 * Elections this node left, with when and the highest term it had held in them, for
	 * {@link #LEFT_REMEMBERED} leases: a failover to a replica that had not applied a
	 * leave's release and removal shows the lease on this node's live session again,
	 * which nobody may take over, and the candidacy, which balancing targets. After a
	 * failover they are left again.
	 */
	private final Map<String, Left> recentlyLeft = new ConcurrentHashMap<>();

	/** Whether a failover was seen whose lost leaves have not been checked yet. */
	private volatile boolean leavesToCheck;

	/**
	 * Leases given up whose release could not be sent yet, by election: the term given
	 * up. Left alone, such a lease would expire on its own, or, where the node stays a
	 * candidate, be re-acquired by it at the next read, as a lease that names this node.
	 */
	private final Map<String, Long> pendingYields = new ConcurrentHashMap<>();

	Releases(String nodeId, String instanceId, LeaseRepository repository, ElectionSettings settings,
			MonotonicClock clock) {
		this.nodeId = nodeId;
		this.instanceId = instanceId;
		this.repository = repository;
		this.clock = clock;
		this.rememberedNanos = LEFT_REMEMBERED * settings.leaseDuration().toNanos();
	}

	/**
	 * @return whether nothing is pending: no release to send again, no candidacy to
	 * remove
	 */
	boolean nonePending() {
		return this.pendingRemovals.isEmpty() && this.pendingYields.isEmpty();
	}

	/**
	 * Whether the release of an election's lease waits to go through: until it does, the
	 * election must not take back what it gave up.
	 * @param election the election
	 * @return {@code true} while pending
	 */
	boolean yieldPending(String election) {
		return this.pendingYields.containsKey(election);
	}

	/**
	 * Another server answers than before (a failover): the next round leaves again what
	 * this node left recently.
	 */
	void failoverSeen() {
		this.leavesToCheck = !this.recentlyLeft.isEmpty();
	}

	/**
	 * Right after the refresh of the session: leave again what a failover may have lost,
	 * and remove the candidacies whose removal failed.
	 * @param loops the elections this node runs
	 */
	void afterRefresh(List<ElectionLoop> loops) {
		leaveAgainAfterAFailover(loops);
		removePendingCandidacies(loops);
	}

	/**
	 * Send again the releases that failed, in one batch after the refresh: the batch
	 * skips a lease whose fenced work still runs rather than wait for it, so that a
	 * release that waits for application work never holds up the refresh that renews
	 * every other lease (I9). A release that fails again is tried at the next round;
	 * until it goes through, or the lease is no longer this node's with that term, the
	 * election decides nothing, so that a node that stays a candidate does not take back
	 * what it gave up.
	 */
	void beforeRead() {
		if (this.pendingYields.isEmpty()) {
			return;
		}
		Map<String, Long> batch = new LinkedHashMap<>(this.pendingYields);
		try {
			for (LeaseState released : this.repository.yieldAll(this.nodeId, batch)) {
				Long term = batch.get(released.election());
				logger.info("Election '{}': released leadership of term {}", released.election(), term);
				this.pendingYields.remove(released.election(), term);
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Node '{}': could not release {} yet; trying again at the next heartbeat", this.nodeId,
					batch.keySet(), ex);
		}
	}

	/**
	 * Forget the releases whose leases are no longer this node's with the term given up.
	 * The read shows only the leases of the elections this node runs; the lease of an
	 * election left is read on its own: forgetting its release while this node's session
	 * keeps the lease alive would leave the election without a leader for as long as this
	 * node runs.
	 * @param loops the elections this node runs
	 * @param leases the round's read
	 */
	void afterRead(List<ElectionLoop> loops, LeaseReads leases) {
		if (this.pendingYields.isEmpty()) {
			// The usual round: no set of every election's name to build.
			return;
		}
		Set<String> running = new HashSet<>();
		loops.forEach((loop) -> running.add(loop.election()));
		for (Map.Entry<String, Long> pending : this.pendingYields.entrySet()) {
			String election = pending.getKey();
			LeaseState lease;
			try {
				lease = running.contains(election) ? leases.lease(election)
						: this.repository.find(election).orElse(null);
			}
			catch (RuntimeException ex) {
				logger.debug("Node '{}': could not read the lease of '{}' it gave up", this.nodeId, election, ex);
				continue;
			}
			if (lease == null || !this.nodeId.equals(lease.leaderId()) || lease.term() != pending.getValue()) {
				this.pendingYields.remove(election, pending.getValue());
			}
		}
	}

	/**
	 * Give up an election's lease: stop believing first, then make the lease vacant so
	 * that another node takes over within a renew interval (I10). Never interleaves with
	 * a change of holder of the same election.
	 * @param loop the election
	 * @param reason reason announced to listeners
	 * @param keepCompeting whether this node stays a candidate; if not, it also leaves
	 * the candidates
	 */
	void release(ElectionLoop loop, RevocationReason reason, boolean keepCompeting) {
		synchronized (loop) {
			yieldHeld(loop, loop.relinquish(reason, keepCompeting));
			if (!keepCompeting) {
				rememberLeft(loop.election(), loop.highestHeldTerm());
				// Apart from the release: a node that failed to release must still leave
				// the candidates, or a forced hand-over to it would be accepted for a
				// whole lease.
				try {
					this.repository.removeCandidate(loop.election(), this.nodeId, this.instanceId);
				}
				catch (RuntimeException ex) {
					this.pendingRemovals.add(loop.election());
					logger.warn("Election '{}': could not leave the candidates; trying again at the next heartbeat: {}",
							loop.election(), ex.toString());
				}
			}
		}
	}

	/**
	 * Make a lease vacant, if this node held one; a release that fails is sent again at
	 * the next rounds.
	 * @param loop the election
	 * @param term the term held, or -1
	 */
	void yieldHeld(ElectionLoop loop, long term) {
		try {
			if (term >= 0 && this.repository.yield(loop.election(), this.nodeId, term)) {
				logger.info("Election '{}': released leadership of term {}", loop.election(), term);
			}
		}
		catch (RuntimeException ex) {
			this.pendingYields.put(loop.election(), term);
			logger.warn("Election '{}': could not release the lease; trying again at the next heartbeat: {}",
					loop.election(), ex.toString());
		}
	}

	/**
	 * Make the given leases vacant, a batch at a time, on shutdown. The batch skips a
	 * lease whose fence row fenced work holds (a job still running as the node stops);
	 * each of those is then released on its own, which waits for that work to commit, as
	 * a change of holder must (I5), so that its successor need not wait for the lease to
	 * run out. A fenced run that outlasts that wait leaves its lease, and the other busy
	 * ones of its batch, to expire on their own; the next batches are still released.
	 * @param held the terms held, by election
	 * @param batchSize most leases a batch carries
	 * @return {@code false} if the database did not answer
	 */
	boolean yieldAll(Map<String, Long> held, int batchSize) {
		List<Map.Entry<String, Long>> entries = new ArrayList<>(held.entrySet());
		for (int from = 0; from < entries.size(); from += batchSize) {
			Map<String, Long> batch = new LinkedHashMap<>();
			entries.subList(from, Math.min(entries.size(), from + batchSize))
				.forEach((entry) -> batch.put(entry.getKey(), entry.getValue()));
			try {
				for (LeaseState released : this.repository.yieldAll(this.nodeId, batch)) {
					logger.info("Election '{}': released leadership of term {}", released.election(),
							batch.remove(released.election()));
				}
			}
			catch (RuntimeException ex) {
				// Once the database fails to answer, the other leases are left to expire:
				// a timeout per batch would hold the shutdown up for as many timeouts.
				logger.warn("Node '{}': could not release a batch of leases; the leases not released yet expire on "
						+ "their own: {}", this.nodeId, ex.toString());
				return false;
			}
			yieldBusy(batch);
		}
		return true;
	}

	/**
	 * Release one at a time the leases a batch skipped, whose fenced work was still
	 * running. The first that fails (its work outlasted the wait a change of holder
	 * allows it, half the statement timeout) leaves the others of the batch to expire:
	 * each would wait as long.
	 */
	private void yieldBusy(Map<String, Long> busy) {
		for (Map.Entry<String, Long> lease : busy.entrySet()) {
			try {
				if (this.repository.yield(lease.getKey(), this.nodeId, lease.getValue())) {
					logger.info("Election '{}': released leadership of term {}", lease.getKey(), lease.getValue());
				}
			}
			catch (RuntimeException ex) {
				logger.warn(
						"Node '{}': could not release election '{}' while its fenced work runs; it and the {} "
								+ "other leases of its batch with fenced work under way expire on their own: {}",
						this.nodeId, lease.getKey(), busy.size() - 1, ex.toString());
				return;
			}
		}
	}

	/**
	 * Remember a leave, and forget those too old to matter: the map stays bounded without
	 * a failover.
	 */
	private void rememberLeft(String election, long highestHeldTerm) {
		long now = this.clock.nanoTime();
		forgetOldLeaves(now);
		this.recentlyLeft.put(election, new Left(now, highestHeldTerm));
	}

	private void forgetOldLeaves(long now) {
		this.recentlyLeft.values().removeIf((left) -> now - left.atNanos() > this.rememberedNanos);
	}

	/**
	 * After a failover, leave again the elections this node left recently and does not
	 * run: remove the candidacy again, and give up the lease where it names this node
	 * with a term this instance held. A higher term is the lease of another instance with
	 * this node id, which took the id over while this one was paused and believes in that
	 * lease: giving it up would let a third node lead beside it (on-demand seed
	 * 18311141). Statements only once per failover, and only for a node that left an
	 * election recently.
	 */
	private void leaveAgainAfterAFailover(List<ElectionLoop> loops) {
		if (!this.leavesToCheck) {
			return;
		}
		forgetOldLeaves(this.clock.nanoTime());
		Set<String> running = new HashSet<>();
		loops.forEach((loop) -> running.add(loop.election()));
		for (Map.Entry<String, Left> left : this.recentlyLeft.entrySet()) {
			String election = left.getKey();
			if (running.contains(election)) {
				// Joined again since: the candidacy and the lease are the new join's.
				this.recentlyLeft.remove(election);
				continue;
			}
			this.pendingRemovals.add(election);
			long highestHeldTerm = left.getValue().highestHeldTerm();
			if (highestHeldTerm >= 0) {
				this.repository.find(election)
					.filter((lease) -> this.nodeId.equals(lease.leaderId()) && lease.term() <= highestHeldTerm)
					.ifPresent((lease) -> this.pendingYields.put(election, lease.term()));
			}
		}
		this.leavesToCheck = false;
	}

	private void removePendingCandidacies(List<ElectionLoop> loops) {
		for (String election : this.pendingRemovals) {
			// Joined again since the leave: the candidacy is the new join's, not the
			// leave's.
			if (loops.stream().noneMatch((loop) -> loop.election().equals(election))) {
				this.repository.removeCandidate(election, this.nodeId, this.instanceId);
			}
			this.pendingRemovals.remove(election);
		}
	}

	/**
	 * An election this node left: when (monotonic clock), and the highest term it had
	 * held there or -1.
	 */
	private record Left(long atNanos, long highestHeldTerm) {
	}

}
