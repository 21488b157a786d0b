package io.github.dbleader.election.event;

import org.springframework.context.ApplicationEvent;

/**
 * Base class of the leadership events of one election. Events are published on the
 * election's notification thread, after the fact and in the order the changes happened; a
 * slow listener delays later events but never the heartbeat.
 *
 * @see ApplicationEventLeadershipListener
 */
public abstract class LeadershipEvent extends ApplicationEvent {

	private final String election;

	/**
	 * Create an event.
	 * @param source the object that published the event
	 * @param election the election name
	 */
	protected LeadershipEvent(Object source, String election) {
		super(source);
		this.election = election;
	}

	/**
	 * Return the name of the election this event is about.
	 * @return the election name
	 */
	public String getElection() {
		return this.election;
	}

}
