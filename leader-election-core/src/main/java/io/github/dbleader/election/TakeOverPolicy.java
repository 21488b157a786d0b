package io.github.dbleader.election;

/**
 * Whether this node may take a lease that nobody holds any more (vacant, or expired and
 * seen unchanged for a whole lease). Consulted on the heartbeat thread, so it must be
 * cheap and must not touch the database. It only ever holds a node back: it cannot make a
 * take-over that the lease does not allow, so it cannot make two leaders. An election of
 * a partition group uses it so that a free partition goes to the node that balancing
 * chose instead of to whichever node asks first.
 */
@FunctionalInterface
public interface TakeOverPolicy {

	/** Take every lease the election allows: the policy of an ordinary election. */
	TakeOverPolicy ALWAYS = (state) -> true;

	/**
	 * Whether this node may take over the given lease now.
	 * @param state the lease as read this round; vacant, or expired
	 * @return {@code true} to take it over now, {@code false} to wait for another round
	 */
	boolean mayTakeOver(LeaseState state);

}
