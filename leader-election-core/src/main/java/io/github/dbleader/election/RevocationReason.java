package io.github.dbleader.election;

/**
 * Why a node stopped being the leader.
 */
public enum RevocationReason {

	/** The application released leadership ({@link Election#release()}). */
	RELEASED,

	/** The lease ran out before it could be renewed, or another node took it over. */
	EXPIRED,

	/**
	 * Renewals failed: the database could not be reached in time, or it refused them (a
	 * missing privilege or table: see {@link Election#heartbeatFailure()} for which).
	 */
	DATABASE_UNREACHABLE,

	/** Leadership was handed over to another node on request. */
	HANDED_OVER,

	/** A re-election was requested; this node stepped down. */
	REELECTION,

	/** The database server changed (fail-over); the node stepped down to re-acquire. */
	SERVER_CHANGED,

	/** The application is shutting down. */
	SHUTDOWN,

	/**
	 * This node stood down ({@link ElectionService#standDown()}): it campaigns again only
	 * when asked to ({@link ElectionService#campaign()}). The starter stands down while
	 * the application's readiness refuses traffic.
	 */
	STOOD_DOWN,

	/** The application left the election ({@link ElectionService#leave(String)}). */
	LEFT,

	/**
	 * Another running instance took this node id over while this one could not reach the
	 * database (duplicate {@code node-id}s); this instance takes no part while it runs.
	 */
	NODE_ID_IN_USE

}
