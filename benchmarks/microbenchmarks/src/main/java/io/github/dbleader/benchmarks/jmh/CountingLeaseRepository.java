package io.github.dbleader.benchmarks.jmh;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

import io.github.dbleader.election.Candidacy;
import io.github.dbleader.election.Candidate;
import io.github.dbleader.election.FencedCallback;
import io.github.dbleader.election.LeaseObservation;
import io.github.dbleader.election.LeaseReads;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.NodeRowSighting;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LeaseRepository} that counts every call before passing it on, apart by thread:
 * calls from the election's own threads (the heartbeat) and calls from any other thread,
 * such as the benchmark's. A leadership check that touched the database would show up in
 * the second count.
 */
final class CountingLeaseRepository implements LeaseRepository {

	private static final String ELECTION_THREAD_PREFIX = "leader-election-";

	private final LeaseRepository delegate;

	private final LongAdder electionThreadCalls = new LongAdder();

	private final LongAdder otherThreadCalls = new LongAdder();

	CountingLeaseRepository(LeaseRepository delegate) {
		this.delegate = delegate;
	}

	/**
	 * @return calls made by the election's own threads
	 */
	long electionThreadCalls() {
		return this.electionThreadCalls.sum();
	}

	/**
	 * @return calls made by any other thread
	 */
	long otherThreadCalls() {
		return this.otherThreadCalls.sum();
	}

	private void count() {
		if (Thread.currentThread().getName().startsWith(ELECTION_THREAD_PREFIX)) {
			this.electionThreadCalls.increment();
		}
		else {
			this.otherThreadCalls.increment();
		}
	}

	@Override
	public Optional<LeaseState> find(String election) {
		count();
		return this.delegate.find(election);
	}

	@Override
	public boolean create(String election, String nodeId, Duration lease) {
		count();
		return this.delegate.create(election, nodeId, lease);
	}

	@Override
	public List<LeaseState> findAll(String nodeId, String instanceId) {
		count();
		return this.delegate.findAll(nodeId, instanceId);
	}

	@Override
	public LeaseReads readAll(String nodeId, String instanceId) {
		count();
		return this.delegate.readAll(nodeId, instanceId);
	}

	@Override
	public boolean takeOver(String election, String nodeId, LeaseObservation observed, Duration lease) {
		count();
		return this.delegate.takeOver(election, nodeId, observed, lease);
	}

	@Override
	public List<LeaseState> takeOverAll(String nodeId, Map<String, LeaseObservation> observed, Duration lease) {
		count();
		return this.delegate.takeOverAll(nodeId, observed, lease);
	}

	@Override
	public List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease) {
		count();
		return this.delegate.handOverAll(fromNodeId, terms, toNodeId, lease);
	}

	@Override
	public List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease,
			@Nullable String decidedOn) {
		count();
		return this.delegate.handOverAll(fromNodeId, terms, toNodeId, lease, decidedOn);
	}

	@Override
	public List<LeaseState> yieldAll(String nodeId, Map<String, Long> terms) {
		count();
		return this.delegate.yieldAll(nodeId, terms);
	}

	@Override
	public List<LeaseState> reacquireAll(String nodeId, Map<String, Long> terms, Duration lease) {
		count();
		return this.delegate.reacquireAll(nodeId, terms, lease);
	}

	@Override
	public int requestHandoverAll(String holderId, Map<String, String> targets) {
		count();
		return this.delegate.requestHandoverAll(holderId, targets);
	}

	@Override
	public boolean handOver(String election, String fromNodeId, long term, String toNodeId, Duration lease) {
		count();
		return this.delegate.handOver(election, fromNodeId, term, toNodeId, lease);
	}

	@Override
	public boolean yield(String election, String nodeId, long term) {
		count();
		return this.delegate.yield(election, nodeId, term);
	}

	@Override
	public boolean reacquire(String election, String nodeId, long term, Duration lease) {
		count();
		return this.delegate.reacquire(election, nodeId, term, lease);
	}

	@Override
	public boolean requestHandover(String election, String nodeId) {
		count();
		return this.delegate.requestHandover(election, nodeId);
	}

	@Override
	public boolean requestReelection(String election) {
		count();
		return this.delegate.requestReelection(election);
	}

	@Override
	public Candidacy heartbeat(String nodeId, String instanceId, Duration staleAfter, long inheritVersion) {
		count();
		return this.delegate.heartbeat(nodeId, instanceId, staleAfter, inheritVersion);
	}

	@Override
	public Candidacy heartbeat(String nodeId, String instanceId, String rank, Duration staleAfter,
			long inheritVersion) {
		count();
		return this.delegate.heartbeat(nodeId, instanceId, rank, staleAfter, inheritVersion);
	}

	@Override
	public int askToLead(String nodeId, String holderId, Collection<String> elections) {
		count();
		return this.delegate.askToLead(nodeId, holderId, elections);
	}

	@Override
	public @Nullable NodeRowSighting nodeRow(String nodeId, Duration staleAfter) {
		count();
		return this.delegate.nodeRow(nodeId, staleAfter);
	}

	@Override
	public void removeCandidate(String election, String nodeId, String instanceId) {
		count();
		this.delegate.removeCandidate(election, nodeId, instanceId);
	}

	@Override
	public void join(String nodeId, String instanceId, Collection<String> elections) {
		count();
		this.delegate.join(nodeId, instanceId, elections);
	}

	@Override
	public void leaveOtherElections(String nodeId, String instanceId, Collection<String> elections) {
		count();
		this.delegate.leaveOtherElections(nodeId, instanceId, elections);
	}

	@Override
	public void removeCandidacies(String nodeId, String instanceId) {
		count();
		this.delegate.removeCandidacies(nodeId, instanceId);
	}

	@Override
	public void purge(Duration maxAge) {
		count();
		this.delegate.purge(maxAge);
	}

	@Override
	public List<Candidate> liveCandidates(String election, Duration maxAge) {
		count();
		return this.delegate.liveCandidates(election, maxAge);
	}

	@Override
	public <T extends @Nullable Object> T runFenced(String election, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback) {
		count();
		return this.delegate.runFenced(election, nodeId, term, maxHoldTime, callback);
	}

}
