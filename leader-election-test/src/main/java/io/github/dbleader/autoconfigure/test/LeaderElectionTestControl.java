package io.github.dbleader.autoconfigure.test;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeaseSighting;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.event.LeadershipEvent;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.partition.PartitionGroup;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Puts this node in the role a test chooses, per election and per cluster lock, and
 * changes it during the test. Inject it into a test annotated with
 * {@link AutoConfigureLeaderElectionTest @AutoConfigureLeaderElectionTest}.
 *
 * <p>
 * The application's {@link ElectionService} runs unchanged on an in-memory lease
 * repository: each change below is carried out by the election's own state machine, so
 * the same {@code LeadershipGrantedEvent}, {@code LeadershipRevokedEvent} and
 * {@code LeaderChangedEvent} are published as in production, {@code @LeaderOnly} methods
 * run or are skipped at once, and fenced work commits or is refused as it would be. Each
 * method returns once the election has acted on the change and its events were delivered;
 * it waits for no timeout, only for the heartbeat rounds that carry the change out (a few
 * tens of milliseconds).
 *
 * <p>
 * Until the test says otherwise, an election (a partition too) has no leader and this
 * node does not take it (nothing is ever taken over on its own), and a cluster lock is
 * free.
 */
public final class LeaderElectionTestControl {

	/**
	 * How long a change may take before the test fails: far more than the few rounds it
	 * needs.
	 */
	private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(10);

	private final ObjectProvider<ElectionService> electionServices;

	private final TestControlledLeaseRepository repository;

	private final HeartbeatRounds rounds;

	private final RecordedLeadershipEvents recordedEvents;

	LeaderElectionTestControl(ObjectProvider<ElectionService> electionServices,
			TestControlledLeaseRepository repository, HeartbeatRounds rounds, RecordedLeadershipEvents recordedEvents) {
		this.electionServices = electionServices;
		this.repository = repository;
		this.rounds = rounds;
		this.recordedEvents = recordedEvents;
	}

	/**
	 * The leadership events published since the last {@link #reset()} (the start of the
	 * test method), in order. They are published on the election's own thread, so
	 * {@code @RecordApplicationEvents}, which records the test thread's events only, does
	 * not see them.
	 * @return the events: {@code LeadershipGrantedEvent}, {@code LeadershipRevokedEvent},
	 * {@code LeaderChangedEvent}
	 */
	public List<LeadershipEvent> events() {
		return this.recordedEvents.events();
	}

	/**
	 * @return this node's id, the one the elections name when this node leads
	 */
	public String nodeId() {
		return electionService().nodeId();
	}

	/**
	 * Make this node the leader of the election with the next term.
	 * @param election the election's name
	 * @return the term this node leads with
	 */
	public long grant(String election) {
		TestControlledLeaseRepository.LeaseRow row = this.repository.lease(election);
		long term = (row != null) ? row.term + 1 : 1;
		grant(election, term);
		return term;
	}

	/**
	 * Make this node the leader of the election with the given term. If it led with
	 * another term, that leadership is revoked first ({@link RevocationReason#EXPIRED}).
	 * @param election the election's name
	 * @param term the term: greater than any earlier term of the election
	 * @throws IllegalArgumentException if the term is not greater than the current one
	 */
	public void grant(String election, long term) {
		Election joined = election(election);
		this.repository.grant(election, nodeId(), term);
		settle(joined, () -> joined.isLeader() && joined.term() == term, "lead with term " + term);
	}

	/**
	 * Make another node the leader of the election, with the next term: this node is a
	 * follower. If it led, its leadership is revoked ({@link RevocationReason#EXPIRED}).
	 * @param election the election's name
	 * @param leaderNodeId the node that leads
	 */
	public void leaderElsewhere(String election, String leaderNodeId) {
		Objects.requireNonNull(leaderNodeId, "leaderNodeId must not be null");
		if (leaderNodeId.equals(nodeId())) {
			throw new IllegalArgumentException("'" + leaderNodeId + "' is this node: use grant instead");
		}
		Election joined = election(election);
		this.repository.holdElsewhere(election, leaderNodeId);
		settle(joined, () -> leaderSeen(joined, leaderNodeId), "follow '" + leaderNodeId + "'");
	}

	/**
	 * Leave the election without a leader: if this node led, its leadership is revoked
	 * ({@link RevocationReason#EXPIRED}); this node does not take the lease until it is
	 * granted.
	 * @param election the election's name
	 */
	public void noLeader(String election) {
		Election joined = election(election);
		if (this.repository.lease(election) == null && !joined.isLeader()) {
			return;
		}
		this.repository.holdElsewhere(election, null);
		settle(joined, () -> leaderSeen(joined, null), "see no leader");
	}

	/**
	 * Revoke this node's leadership as the given reason would in production.
	 * <ul>
	 * <li>{@link RevocationReason#EXPIRED}: the lease was lost; afterwards nobody leads
	 * (see {@link #noLeader});
	 * <li>{@link RevocationReason#REELECTION}: a re-election was requested; this node
	 * steps down and the lease is vacant;
	 * <li>{@link RevocationReason#SERVER_CHANGED}: the database failed over; this node
	 * steps down at once and leads again with the next term a lease later, as after a
	 * real failover (the new server may have lost a newer holder's lease, whose belief
	 * lasts that long): this call waits that long, so give tests of it a short
	 * {@code leader-election.lease-duration}.
	 * </ul>
	 * {@link RevocationReason#HANDED_OVER}: see {@link #handOver}. The other reasons come
	 * from the application itself ({@code Election.release()},
	 * {@code ElectionService.leave}, shutdown) or from a database outage, which this
	 * control does not simulate.
	 * @param election the election's name
	 * @param reason why leadership ends
	 * @throws IllegalStateException if this node does not lead the election
	 * @throws IllegalArgumentException for a reason this control cannot bring about
	 */
	public void revoke(String election, RevocationReason reason) {
		Election joined = election(election);
		long term = joined.term();
		if (term < 0) {
			throw new IllegalStateException("Node '" + nodeId() + "' does not lead election '" + election + "'");
		}
		switch (reason) {
			case EXPIRED -> noLeader(election);
			case REELECTION -> {
				this.repository.requestStepDown(election);
				settle(joined, () -> leaderSeen(joined, null), "step down");
			}
			case SERVER_CHANGED -> {
				this.repository.failOver(election);
				settle(joined, () -> joined.isLeader() && joined.term() > term, "lead again with a new term",
						electionService().settings().leaseDuration().plus(SETTLE_TIMEOUT));
			}
			default -> throw new IllegalArgumentException("Revocation reason " + reason
					+ " is not brought about by the test control: use EXPIRED, REELECTION or SERVER_CHANGED, "
					+ "handOver for HANDED_OVER, or call the application's own API for the others");
		}
	}

	/**
	 * Hand leadership over to a node, as an operator's {@code Election.forceLeader} does:
	 * if this node leads, it hands the lease over ({@link RevocationReason#HANDED_OVER})
	 * and follows; if it does not, the node leads with the next term. Handing over to
	 * this node makes it lead with the next term.
	 * @param election the election's name
	 * @param targetNodeId the node that should lead
	 */
	public void handOver(String election, String targetNodeId) {
		Objects.requireNonNull(targetNodeId, "targetNodeId must not be null");
		Election joined = election(election);
		TestControlledLeaseRepository.LeaseRow row = this.repository.lease(election);
		if (row == null || row.leaderId == null) {
			throw new IllegalStateException("Election '" + election + "' has no leader to hand over");
		}
		if (targetNodeId.equals(nodeId())) {
			grant(election, row.term + 1);
			return;
		}
		if (!joined.isLeader()) {
			leaderElsewhere(election, targetNodeId);
			return;
		}
		this.repository.requestHandoverTo(election, targetNodeId);
		settle(joined, () -> leaderSeen(joined, targetNodeId), "hand over to '" + targetNodeId + "'");
	}

	/**
	 * Make this node the owner of a partition of a partition group, with the next term:
	 * {@code PartitionGainedEvent} is published and the group's {@code isOwner} answers
	 * {@code true}. In a test, the group's balancing sees this node as its only member,
	 * so partitions change owner only when the test says so.
	 * @param group the group's name
	 * @param partition the partition
	 * @return the term this node owns the partition with
	 */
	public long grantPartition(String group, int partition) {
		return grant(PartitionGroup.electionName(group, partition));
	}

	/**
	 * Make another node the owner of a partition: if this node owned it, it loses it
	 * ({@code PartitionLostEvent}).
	 * @param group the group's name
	 * @param partition the partition
	 * @param ownerNodeId the node that owns it
	 */
	public void partitionOwnedElsewhere(String group, int partition, String ownerNodeId) {
		leaderElsewhere(PartitionGroup.electionName(group, partition), ownerNodeId);
	}

	/**
	 * Leave a partition without an owner: if this node owned it, it loses it.
	 * @param group the group's name
	 * @param partition the partition
	 */
	public void partitionUnowned(String group, int partition) {
		noLeader(PartitionGroup.electionName(group, partition));
	}

	/**
	 * Make another node hold the cluster lock until {@link #freeLock} is called: this
	 * node's attempts to take it are skipped, and if this node held it, its fenced work
	 * is refused from now on (fenced work under way when it is taken fails to commit).
	 * @param name the lock's name, as in {@code @ClusterLock}
	 */
	public void lockHeldElsewhere(String name) {
		this.repository.holdLockElsewhere(ClusterLocks.key(name));
	}

	/**
	 * Free the cluster lock, whoever holds it, as an operator's force-release does: the
	 * next attempt to take it succeeds, and the fenced work of an earlier holder is
	 * refused.
	 * @param name the lock's name
	 */
	public void freeLock(String name) {
		this.repository.freeLock(ClusterLocks.key(name));
	}

	/**
	 * Start again as on a new database: this node's leaderships are revoked
	 * ({@link RevocationReason#EXPIRED}) and every election sees no leader, then no
	 * election has a term yet, every lock is free, and the recorded events are cleared.
	 * Called after each test method by {@link LeaderElectionTestExecutionListener}, since
	 * tests that share an application context share its elections.
	 */
	public void reset() {
		ElectionService electionService = this.electionServices.getIfAvailable();
		if (electionService != null && electionService.isRunning()) {
			this.repository.led().forEach(this::noLeader);
		}
		this.repository.clear();
		this.recordedEvents.clear();
	}

	private ElectionService electionService() {
		ElectionService electionService = this.electionServices.getIfAvailable();
		if (electionService == null) {
			throw new IllegalStateException("The application has no ElectionService bean: the leader election "
					+ "auto-configuration needs a DataSource (an embedded one will do) and leader-election.enabled");
		}
		return electionService;
	}

	private Election election(String name) {
		ElectionService electionService = electionService();
		if (!electionService.isRunning()) {
			throw new IllegalStateException("The election service of node '" + electionService.nodeId()
					+ "' does not run: the test control needs the application context started");
		}
		if (name.startsWith(ElectionService.PARTITION_NAME_PREFIX)) {
			Election partition = electionService.findElection(name);
			if (partition == null) {
				throw new IllegalArgumentException("Election '" + name + "' is no partition of a group of this node");
			}
			return partition;
		}
		return electionService.election(name);
	}

	private static boolean leaderSeen(Election election, @Nullable String leaderNodeId) {
		Optional<LeaseSighting> seen = election.lastSeenLease();
		return !election.isLeader() && seen.isPresent() && Objects.equals(seen.get().lease().leaderId(), leaderNodeId);
	}

	/**
	 * Wait until the election shows the expected role, and then for one more heartbeat
	 * round, so that the events of the round that brought it about were delivered.
	 */
	private void settle(Election election, BooleanSupplier role, String expected) {
		settle(election, role, expected, SETTLE_TIMEOUT);
	}

	private void settle(Election election, BooleanSupplier role, String expected, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		// A round that started before the change may not have seen it; the next one has.
		long next = this.rounds.delivered() + 2;
		while (this.rounds.awaitDelivered(next, deadline)) {
			if (role.getAsBoolean()) {
				if (this.rounds.awaitDelivered(this.rounds.delivered() + 1, deadline)) {
					return;
				}
				break;
			}
			next = this.rounds.delivered() + 1;
		}
		LeaseState lease = election.lastSeenLease().map(LeaseSighting::lease).orElse(null);
		throw new IllegalStateException("Node '" + nodeId() + "' did not " + expected + " in election '"
				+ election.name() + "' within " + timeout + " (leader: " + election.isLeader() + ", term "
				+ election.term() + ", lease last seen: " + lease + ")");
	}

}
