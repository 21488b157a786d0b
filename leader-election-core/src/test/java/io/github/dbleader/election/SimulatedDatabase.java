package io.github.dbleader.election;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * The database of a {@link Simulation}: a primary server (the rows and statements of
 * {@link InMemoryLeaseRepository}, which runs the repository contract tests as the JDBC
 * repositories do), an asynchronous replica that a failover promotes with whatever it had
 * applied (the newest writes lost), a clock that can step forward and back, and the network
 * path of each node, which can be cut. Statements reach it through each node's
 * {@link SimulatedConnection}, which adds latency, timeouts and lost replies.
 */
final class SimulatedDatabase {

	/** How often the replica applies what the primary wrote (simulated nanoseconds). */
	static final long REPLICA_APPLY_INTERVAL_NANOS = 50_000_000L;

	/** The epoch milliseconds of the database clock at simulated time zero. */
	private static final long EPOCH_MILLIS = 1_800_000_000_000L;

	private final Simulation simulation;

	private InMemoryLeaseRepository primary;

	/** What the replica applied, oldest first, with the simulated time of each copy. */
	private final Deque<Applied> replica = new ArrayDeque<>();

	/** While set, the replica stops applying the primary's writes: it lags from then on. */
	private boolean replicaStopped;

	private long clockOffsetMillis;

	private int failovers;

	/** Simulated time until which every statement waits at the server (a stall), or 0. */
	private long stalledUntil;

	private final Map<String, Long> cutUntil = new HashMap<>();

	SimulatedDatabase(Simulation simulation) {
		this.simulation = simulation;
		this.primary = new InMemoryLeaseRepository();
		this.primary.setDatabaseMillis(EPOCH_MILLIS);
	}

	/** @return the server that answers now */
	InMemoryLeaseRepository server() {
		return this.primary;
	}

	/**
	 * The database clock as the server reads it now: the simulated time plus every step.
	 * @return epoch milliseconds
	 */
	long millis() {
		return EPOCH_MILLIS + this.simulation.now() / 1_000_000L + this.clockOffsetMillis;
	}

	/** Make the server's clock read the database clock, before it runs a statement. */
	void tick() {
		this.primary.setDatabaseMillis(millis());
	}

	/**
	 * Step the database clock.
	 * @param millis how far, negative for back
	 */
	void stepClock(long millis) {
		this.clockOffsetMillis += millis;
	}

	/** The replica applies the primary's writes: called every {@link #REPLICA_APPLY_INTERVAL_NANOS}. */
	void replicate() {
		if (this.replicaStopped) {
			return;
		}
		tick();
		this.replica.addLast(new Applied(this.simulation.now(), this.primary.copy()));
		while (this.replica.size() > 2) {
			this.replica.removeFirst();
		}
	}

	/** The replica stops applying writes, as a replica whose link to the primary broke. */
	void stopReplica() {
		this.replicaStopped = true;
	}

	/**
	 * Promote the replica: every connection to the old primary breaks, and what the replica
	 * had not applied is lost. The promoted server has an identity of its own.
	 */
	void failOver() {
		InMemoryLeaseRepository promoted = this.replica.isEmpty() ? this.primary.copy()
				: this.replica.getLast().rows().copy();
		this.failovers++;
		promoted.failOver("server-" + (this.failovers + 1));
		this.primary = promoted;
		this.replica.clear();
		this.replicaStopped = false;
		replicate();
	}

	/**
	 * Cut a node off the database until a time: its statements fail (or hang until their
	 * timeout) from now on, replies to those under way are lost.
	 * @param nodeId the node
	 * @param until simulated time
	 */
	void cut(String nodeId, long until) {
		this.cutUntil.merge(nodeId, until, Math::max);
	}

	/** Heal every cut now. */
	void healAll() {
		this.cutUntil.clear();
	}

	boolean reachable(String nodeId) {
		Long until = this.cutUntil.get(nodeId);
		return until == null || until <= this.simulation.now();
	}

	/**
	 * Make every statement wait at the server until a time, as a database frozen by a
	 * stalled disk or a cluster that evicts a node.
	 * @param until simulated time
	 */
	void stall(long until) {
		this.stalledUntil = Math.max(this.stalledUntil, until);
	}

	long stalledUntil() {
		return this.stalledUntil;
	}

	/** The replica's copy and when it was taken. */
	private record Applied(long at, InMemoryLeaseRepository rows) {
	}

}
