package io.github.dbleader.election.it;

import java.util.List;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.LeaseRepository;

/**
 * One contender of an integration test: an {@link ElectionService} of its own with a node
 * id, taking part in one election, and the resources it alone uses (its pools), closed
 * with it.
 */
public final class ElectionNode implements AutoCloseable {

	private final ElectionService service;

	private final Election election;

	private final List<AutoCloseable> owned;

	/**
	 * Create a node; it competes once {@link #start() started}.
	 * @param nodeId its id
	 * @param electionName the election it takes part in
	 * @param repository its lease statements
	 * @param settings timing
	 * @param listener receives its leadership events
	 * @param owned resources only this node uses, closed after it stops
	 */
	public ElectionNode(String nodeId, String electionName, LeaseRepository repository, ElectionSettings settings,
			LeadershipListener listener, AutoCloseable... owned) {
		this.service = new ElectionService(repository, settings, nodeId, listener);
		this.election = this.service.election(electionName);
		this.owned = List.of(owned);
	}

	/**
	 * @return the node id
	 */
	public String nodeId() {
		return this.service.nodeId();
	}

	/**
	 * @return the node's election
	 */
	public Election election() {
		return this.election;
	}

	/**
	 * @return whether the node believes it leads, now
	 */
	public boolean isLeader() {
		return this.election.isLeader();
	}

	/**
	 * Start competing.
	 * @return this node
	 */
	public ElectionNode start() {
		this.service.start();
		return this;
	}

	/** Stop gracefully: release the lease and leave the candidates. */
	public void stop() {
		this.service.stop();
	}

	/** Stop dead, as a crash would: the lease expires on its own. */
	public void halt() {
		this.service.halt();
	}

	/** Halt if still running, then close the node's own resources. */
	@Override
	public void close() throws Exception {
		this.service.halt();
		for (AutoCloseable resource : this.owned) {
			resource.close();
		}
	}

	@Override
	public String toString() {
		return this.service.nodeId();
	}

}
