package io.github.dbleader.election;

/**
 * What the heartbeat found out about this node's id: whether this running instance may
 * use it. Node ids must be unique among running instances; a per-instance token in the
 * node's row lets the election notice when they are not.
 */
public enum Candidacy {

	/** This instance holds the node id: its own row was refreshed. */
	HELD,

	/**
	 * This instance created the node id's row: no instance used the id recently. Its
	 * candidates rows may have been purged meanwhile, so the node joins its elections
	 * again.
	 */
	CREATED,

	/**
	 * This instance took the node id over from another instance whose heartbeats had
	 * stopped for a lease (a crashed process restarted under the same id). That instance
	 * may only be paused, so a lease that names this id is not adopted at once.
	 */
	INHERITED,

	/**
	 * Another running instance uses this node id. This instance takes no part in the
	 * election until that one stops.
	 */
	IN_USE

}
