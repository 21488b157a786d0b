package io.github.dbleader.election;

import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.function.Predicate;

import io.github.dbleader.election.lock.InMemoryLockRepository;
import io.github.dbleader.election.lock.LockRepository;
import io.github.dbleader.election.lock.LockState;
import org.jspecify.annotations.Nullable;

/**
 * One process's lock statements ({@link LockRepository}) on the
 * {@link SimulatedDatabase}'s lock rows, sent through the node's
 * {@link SimulatedConnection}: the same latency, stalls, timeouts, lost answers and cuts
 * as its lease statements. As {@code JdbcLockRepository} does, a take of an expired lock
 * and an operator's release write the lock's fence row, and so wait for a fenced run that
 * holds it, until the statement timeout, then fail; extensions and the holder's release
 * do not wait. Bound to one process: once it ends, its statements are never sent (a
 * crashed process's {@code finally} blocks do not reach the database).
 */
final class SimulatedLockConnection implements LockRepository {

	private final Simulation simulation;

	private final SimulatedDatabase database;

	private final SimulatedConnection connection;

	private final int generation;

	SimulatedLockConnection(Simulation simulation, SimulatedDatabase database, SimulatedConnection connection,
			int generation) {
		this.simulation = simulation;
		this.database = database;
		this.connection = connection;
		this.generation = generation;
	}

	private <T> T send(String statement, @Nullable Predicate<InMemoryLockRepository> waitsWhile,
			Function<InMemoryLockRepository, T> action) {
		Predicate<InMemoryLeaseDatabase> waits = (waitsWhile != null)
				? (server) -> waitsWhile.test(this.database.locks()) : null;
		return this.connection.send(statement, this.generation, waits, (server) -> {
			InMemoryLockRepository locks = this.database.locks();
			if (waitsWhile != null && waitsWhile.test(locks)) {
				throw new IllegalStateException("lock wait on the fence row of the lock timed out",
						new SQLTimeoutException("statement timed out"));
			}
			return action.apply(locks);
		});
	}

	/**
	 * Whether a take of a lock waits: it has expired, and a fenced run holds its fence
	 * row.
	 */
	private Predicate<InMemoryLockRepository> takeWaits(String key) {
		return (locks) -> {
			InMemoryLockRepository.Row row = locks.row(key);
			return row != null && row.expiresAt() <= this.database.millis() && this.database.lockFenceBusy(key);
		};
	}

	@Override
	public OptionalLong tryLock(String key, String nodeId, Duration atMostFor) {
		return send("tryLock " + key, takeWaits(key), (locks) -> {
			OptionalLong term = locks.tryLock(key, nodeId, atMostFor);
			// As the database applies it: answers may arrive in another order, or be
			// lost.
			term.ifPresent((taken) -> this.simulation.checker().lockTaken(key, nodeId, taken));
			return term;
		});
	}

	@Override
	public List<String> freeLocks(List<String> keys) {
		return send("freeLocks " + keys, null, (locks) -> locks.freeLocks(keys));
	}

	@Override
	public boolean extendLock(String key, String nodeId, long term, Duration atMostFor) {
		return send("extendLock " + key, null, (locks) -> locks.extendLock(key, nodeId, term, atMostFor));
	}

	@Override
	public int extendLocks(String nodeId, Map<String, Long> heldTerms, Duration atMostFor) {
		return send("extendLocks", null, (locks) -> locks.extendLocks(nodeId, heldTerms, atMostFor));
	}

	@Override
	public boolean releaseLock(String key, String nodeId, long term, Duration atLeastFor,
			Duration atLeastForAfterExtension) {
		return send("releaseLock " + key, null,
				(locks) -> locks.releaseLock(key, nodeId, term, atLeastFor, atLeastForAfterExtension));
	}

	@Override
	public List<LockState> findLocks() {
		return send("findLocks", null, InMemoryLockRepository::findLocks);
	}

	@Override
	public OptionalLong forceRelease(String key) {
		return send("forceRelease " + key, (locks) -> this.database.lockFenceBusy(key),
				(locks) -> locks.forceRelease(key));
	}

	/**
	 * The fence check runs at the server, then the work runs in the node while the
	 * transaction holds the lock's fence row, then the commit travels to the server, as
	 * for an election's fenced work ({@link SimulatedConnection#runFenced}). The checker
	 * sees every commit that succeeded.
	 */
	@Override
	public <T extends @Nullable Object> T runLockFenced(String key, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback) {
		return this.connection.fenced("runLockFenced " + key + " term " + term, this.generation, (server, opened) -> {
			InMemoryLockRepository locks = this.database.locks();
			return locks.runLockFenced(key, nodeId, term, maxHoldTime, (fencedTerm) -> {
				Runnable ended = this.database.holdLockFence(locks, key);
				try {
					T done = callback.doInFence(fencedTerm);
					this.connection.commit(server, this.generation, opened, maxHoldTime);
					this.simulation.checker().lockCommit(locks, key, nodeId, fencedTerm);
					return done;
				}
				finally {
					ended.run();
				}
			});
		});
	}

}
