package io.github.dbleader.autoconfigure.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.dbleader.election.event.LeadershipEvent;

import org.springframework.context.ApplicationListener;

/**
 * Records the leadership events the application context publishes. They are published on
 * the election's own thread, which {@code @RecordApplicationEvents} (bound to the test's
 * thread) does not see.
 */
final class RecordedLeadershipEvents implements ApplicationListener<LeadershipEvent> {

	private final List<LeadershipEvent> events = new CopyOnWriteArrayList<>();

	@Override
	public void onApplicationEvent(LeadershipEvent event) {
		this.events.add(event);
	}

	List<LeadershipEvent> events() {
		return List.copyOf(this.events);
	}

	void clear() {
		this.events.clear();
	}

}
