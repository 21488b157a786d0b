package io.github.dbleader.election;

import java.util.HashMap;
import java.util.Map;

import io.github.dbleader.election.lock.InMemoryLockRepository;
import io.github.dbleader.election.partition.InMemoryPartitionPins;
import io.github.dbleader.election.partition.PartitionPins;
import org.jspecify.annotations.Nullable;

/**
 * The database of a {@link Simulation}: a primary server (the rows and statements of
 * {@link InMemoryLeaseDatabase}, which runs the repository contract tests as the JDBC
 * repositories do, and the cluster locks' rows of {@link InMemoryLockRepository}, in the
 * same database: one clock, one replica, one failover), an asynchronous replica that a
 * failover promotes with whatever it had applied (the newest writes lost), a clock that
 * can step forward and back, and the network path of each node, which can be cut. The
 * replica applies every write as it commits until it is stopped ({@link #stopReplica}).
 * Statements reach it through each node's {@link SimulatedConnection}, which adds
 * latency, timeouts and lost replies.
 */
final class SimulatedDatabase {

	/** The epoch milliseconds of the database clock at simulated time zero. */
	private static final long EPOCH_MILLIS = 1_800_000_000_000L;

	private final Simulation simulation;

	private InMemoryLeaseDatabase primary;

	/** The lock rows of the primary. */
	private InMemoryLockRepository primaryLocks;

	/**
	 * What the replica applied before it stopped applying the primary's writes, or
	 * {@code null} while it applies every write as it commits.
	 */
	private @Nullable InMemoryLeaseDatabase replica;

	/** The lock rows the replica applied, alongside {@link #replica}. */
	private @Nullable InMemoryLockRepository replicaLocks;

	/**
	 * By server, the lock fence rows that fenced runs hold there, and how many runs hold
	 * each: a change of a lock's holder on that server waits for them.
	 */
	private final Map<InMemoryLockRepository, Map<String, Integer>> lockFences = new HashMap<>();

	/** The pins of partition groups on the primary. */
	private InMemoryPartitionPins primaryPins = new InMemoryPartitionPins();

	/** The pins the replica applied, alongside {@link #replica}. */
	private @Nullable InMemoryPartitionPins replicaPins;

	private long clockOffsetMillis;

	private int failovers;

	/** Simulated time until which every statement waits at the server (a stall), or 0. */
	private long stalledUntil;

	private final Map<String, Long> cutUntil = new HashMap<>();

	SimulatedDatabase(Simulation simulation) {
		this.simulation = simulation;
		this.primary = new InMemoryLeaseDatabase();
		this.primary.setDatabaseMillis(EPOCH_MILLIS);
		dropsLongFenceHolds(this.primary);
		this.primaryLocks = new InMemoryLockRepository();
		this.primaryLocks.setDatabaseMillis(EPOCH_MILLIS);
	}

	/**
	 * The server drops a session whose transaction has held a fence row open for its
	 * maximum hold time (PostgreSQL's idle_in_transaction_session_timeout, the MySQL
	 * session's wait_timeout), which frees the fence for a change of holder; the work's
	 * commit then fails.
	 */
	private void dropsLongFenceHolds(InMemoryLeaseDatabase server) {
		server.onFenceHold(
				(maxHoldTime, end) -> this.simulation.at(this.simulation.now() + maxHoldTime.toNanos(), null, end));
	}

	/**
	 * @return the server that answers now
	 */
	InMemoryLeaseDatabase server() {
		return this.primary;
	}

	/**
	 * @return the lock rows of the server that answers now
	 */
	InMemoryLockRepository locks() {
		return this.primaryLocks;
	}

	/**
	 * A fenced run of a lock holds the lock's fence row on a server.
	 * @param server the server its transaction runs on
	 * @param key the lock's row
	 * @return what ends the hold, as the transaction ends
	 */
	Runnable holdLockFence(InMemoryLockRepository server, String key) {
		Map<String, Integer> held = this.lockFences.computeIfAbsent(server, (any) -> new HashMap<>());
		held.merge(key, 1, Integer::sum);
		return () -> held.computeIfPresent(key, (any, count) -> (count > 1) ? count - 1 : null);
	}

	/**
	 * Whether a fenced run holds a lock's fence row on the server that answers now.
	 * @param key the lock's row
	 * @return {@code true} if so
	 */
	boolean lockFenceBusy(String key) {
		return this.lockFences.getOrDefault(this.primaryLocks, Map.of()).containsKey(key);
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
		this.primaryLocks.setDatabaseMillis(millis());
	}

	/**
	 * Step the database clock.
	 * @param millis how far, negative for back
	 */
	void stepClock(long millis) {
		this.clockOffsetMillis += millis;
	}

	/**
	 * The replica stops applying writes, as a replica whose link to the primary broke: a
	 * failover from now on loses every write the primary commits meanwhile.
	 */
	void stopReplica() {
		if (this.replica == null) {
			tick();
			this.replica = this.primary.copy();
			this.replicaLocks = this.primaryLocks.copy();
			this.replicaPins = this.primaryPins.copy();
		}
	}

	/**
	 * Promote the replica: every connection to the old primary breaks, and what the
	 * replica had not applied is lost. The promoted server has an identity of its own.
	 */
	void failOver() {
		InMemoryLeaseDatabase promoted = (this.replica != null) ? this.replica : this.primary.copy();
		InMemoryLockRepository promotedLocks = (this.replicaLocks != null) ? this.replicaLocks
				: this.primaryLocks.copy();
		InMemoryPartitionPins promotedPins = (this.replicaPins != null) ? this.replicaPins : this.primaryPins.copy();
		this.failovers++;
		promoted.failOver("server-" + (this.failovers + 1));
		dropsLongFenceHolds(promoted);
		this.primary = promoted;
		this.primaryLocks = promotedLocks;
		this.primaryPins = promotedPins;
		this.replicaPins = null;
		this.replica = null;
		this.replicaLocks = null;
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

	/**
	 * The pins of partition groups, kept in this database
	 * ({@link InMemoryPartitionPins}), each call one statement of a node through its
	 * connection: latency, cuts, timeouts and lost answers as for the lease statements.
	 * @param connection the node's connection
	 * @return the pins as that node reads and writes them
	 */
	PartitionPins pins(SimulatedConnection connection) {
		return new PartitionPins() {

			@Override
			public Map<Integer, String> pins(String group) {
				return connection.send("pins", connection.generation(), null,
						(server) -> SimulatedDatabase.this.primaryPins.pins(group));
			}

			@Override
			public void pin(String group, int partition, String nodeId) {
				connection.send("pin", connection.generation(), null, (server) -> {
					SimulatedDatabase.this.primaryPins.pin(group, partition, nodeId);
					return null;
				});
			}

			@Override
			public boolean unpin(String group, int partition) {
				return connection.send("unpin", connection.generation(), null,
						(server) -> SimulatedDatabase.this.primaryPins.unpin(group, partition));
			}

		};
	}

}
