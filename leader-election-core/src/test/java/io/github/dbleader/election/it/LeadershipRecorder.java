package io.github.dbleader.election.it;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.RevocationReason;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LeadershipListener} shared by the nodes of a test that keeps every grant and
 * revocation in the order they were delivered, with the time of delivery.
 */
public final class LeadershipRecorder implements LeadershipListener {

	private final List<Event> events = new CopyOnWriteArrayList<>();

	@Override
	public void granted(String election, String nodeId, long term) {
		this.events.add(new Event(nodeId, term, null, System.nanoTime()));
	}

	@Override
	public void revoked(String election, String nodeId, long term, RevocationReason reason) {
		this.events.add(new Event(nodeId, term, reason, System.nanoTime()));
	}

	/**
	 * @return the grants, in the order they were delivered
	 */
	public List<Event> grants() {
		return this.events.stream().filter(Event::isGrant).toList();
	}

	/**
	 * The revocations of one node, in the order they were delivered.
	 * @param nodeId the node
	 * @return its revocations
	 */
	public List<Event> revocationsOf(String nodeId) {
		return this.events.stream().filter((event) -> !event.isGrant() && event.nodeId().equals(nodeId)).toList();
	}

	/**
	 * A grant or a revocation.
	 *
	 * @param nodeId the node
	 * @param term the term granted or ended
	 * @param reason why it ended, or {@code null} for a grant
	 * @param deliveredNanos {@link System#nanoTime()} when the listener received it
	 */
	public record Event(String nodeId, long term, @Nullable RevocationReason reason, long deliveredNanos) {

		/**
		 * @return whether this is a grant
		 */
		public boolean isGrant() {
			return this.reason == null;
		}

	}

}
