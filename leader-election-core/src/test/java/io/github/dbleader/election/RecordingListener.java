package io.github.dbleader.election;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Records every callback as a line of text, e.g. {@code granted a 17} or
 * {@code revoked a 17 HANDED_OVER}.
 */
final class RecordingListener implements LeadershipListener {

	final List<String> events = new ArrayList<>();

	final List<Long> grantedTerms = new ArrayList<>();

	@Override
	public void granted(String election, String nodeId, long term) {
		this.events.add("granted " + nodeId + " " + term);
		this.grantedTerms.add(term);
	}

	@Override
	public void revoked(String election, String nodeId, long term, RevocationReason reason) {
		this.events.add("revoked " + nodeId + " " + term + " " + reason);
	}

	@Override
	public void leaderChanged(String election, @Nullable String previousLeader, @Nullable String newLeader, long term) {
		this.events.add("changed " + previousLeader + " -> " + newLeader);
	}

	List<String> grantsAndRevocations() {
		return this.events.stream().filter((event) -> !event.startsWith("changed")).toList();
	}

}
