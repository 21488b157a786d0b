package io.github.dbleader.election;

import java.time.Duration;
import java.util.Random;

/**
 * An {@link ElectionService} alone on a lease repository in memory, on a fake clock,
 * whose heartbeat rounds run when the test says, on the test's thread, and whose listener
 * callbacks run at once on the thread that causes them: for tests of other packages that
 * need leadership granted and revoked without waiting.
 */
public final class SteppedElectionService {

	/** The lease: 10 s. */
	public static final Duration LEASE = Duration.ofSeconds(10);

	/** The renew interval: 2 s. */
	public static final Duration RENEW_INTERVAL = Duration.ofSeconds(2);

	private final FakeClock clock = new FakeClock();

	private final InMemoryLeaseDatabase repository = new InMemoryLeaseDatabase();

	private final SteppedScheduling scheduling = new SteppedScheduling();

	private final ElectionService service;

	/**
	 * Create a service; it runs rounds once started and {@link #round() stepped}.
	 * @param nodeId the node's id
	 * @param listener its listener
	 */
	public SteppedElectionService(String nodeId, LeadershipListener listener) {
		this.service = new ElectionService(this.repository, ElectionSettings.of(LEASE, RENEW_INTERVAL), nodeId,
				nodeId + "-1", listener, this.clock, DatabasePreparation.NONE, new Random(1), this.scheduling);
	}

	/**
	 * @return the service
	 */
	public ElectionService service() {
		return this.service;
	}

	/**
	 * A renew interval passes, then the rounds asked for meanwhile and one heartbeat
	 * round run.
	 */
	public void round() {
		this.clock.advance(RENEW_INTERVAL);
		this.repository.advanceDatabaseClock(RENEW_INTERVAL);
		this.scheduling.extraRounds();
		this.service.runHeartbeat();
	}

	/**
	 * Run rounds until this node leads the election.
	 * @param election the election: joined if it was not (a partition's must have been)
	 * @return the term it leads with
	 * @throws IllegalStateException if it does not lead within ten leases
	 */
	public long roundsUntilLeader(String election) {
		Election found = this.service.findElection(election);
		Election joined = (found != null) ? found : this.service.election(election);
		for (int i = 0; i < 50 && !joined.isLeader(); i++) {
			round();
		}
		if (!joined.isLeader()) {
			throw new IllegalStateException("Node '" + this.service.nodeId() + "' did not lead '" + election + "'");
		}
		return joined.term();
	}

}
