package io.github.dbleader.election.observation;

import java.util.Objects;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * Context of the observation of a change of this node's leadership
 * ({@link LeaderElectionObservationDocumentation#LEADERSHIP_CHANGE}).
 */
public class LeadershipChangeContext extends Observation.Context {

	private final String election;

	private final Change change;

	private final String nodeId;

	private final long term;

	private final @Nullable String reason;

	/**
	 * Create a context.
	 * @param election the election
	 * @param change granted or revoked
	 * @param nodeId this node
	 * @param term the term granted, or the one that ended
	 * @param reason why leadership was revoked (the name of the revocation reason), or
	 * {@code null} for a grant
	 */
	public LeadershipChangeContext(String election, Change change, String nodeId, long term, @Nullable String reason) {
		this.election = Objects.requireNonNull(election, "election must not be null");
		this.change = Objects.requireNonNull(change, "change must not be null");
		this.nodeId = Objects.requireNonNull(nodeId, "nodeId must not be null");
		this.term = term;
		this.reason = reason;
	}

	/**
	 * @return the election
	 */
	public String getElection() {
		return this.election;
	}

	/**
	 * @return granted or revoked
	 */
	public Change getChange() {
		return this.change;
	}

	/**
	 * @return this node's id
	 */
	public String getNodeId() {
		return this.nodeId;
	}

	/**
	 * @return the term granted, or the one that ended
	 */
	public long getTerm() {
		return this.term;
	}

	/**
	 * @return why leadership was revoked, or {@code null} for a grant
	 */
	public @Nullable String getReason() {
		return this.reason;
	}

	/** A change of this node's leadership. */
	public enum Change {

		/** This node became the leader. */
		GRANTED,

		/** This node stopped being the leader. */
		REVOKED

	}

}
