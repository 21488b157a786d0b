package io.github.dbleader.election.lock;

import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import io.github.dbleader.election.FencedCallback;
import org.jspecify.annotations.Nullable;

/**
 * {@link LockRepository} in memory, on a database clock of its own that tests move, and
 * counting the statements a real repository would send. Each method changes and checks
 * the row as the statement of {@code JdbcLockRepository} does; a test can
 * {@link #interleave} another statement with the next write, as another connection's
 * would be.
 */
public class InMemoryLockRepository implements LockRepository {

	private final Map<String, Row> rows = new HashMap<>();

	/** Fenced transactions open on each lock's fence row, by key. */
	private final Map<String, Integer> fenceHolds = new HashMap<>();

	private long databaseMillis = 1_700_000_000_000L;

	int statements;

	@Nullable RuntimeException failure;

	private @Nullable Interleaving interleaving;

	/**
	 * Run another statement once, inside the next statement that writes a lock's row, as
	 * a statement on another connection would run meanwhile: before the database applies
	 * the next one, or after it applied it while its answer is still on its way. What the
	 * other throws reaches the caller of the next statement instead of its answer (a lost
	 * answer: the outcome is unknown to the caller).
	 * @param beforeApplying whether the other runs before the next statement is applied
	 * @param other the other statement
	 */
	synchronized void interleave(boolean beforeApplying, Runnable other) {
		this.interleaving = new Interleaving(beforeApplying, other);
	}

	private void interleaved(boolean beforeApplying) {
		Interleaving next = this.interleaving;
		if (next != null && next.beforeApplying() == beforeApplying) {
			this.interleaving = null;
			next.other().run();
		}
	}

	synchronized void advanceDatabaseClock(Duration duration) {
		this.databaseMillis += duration.toMillis();
	}

	/**
	 * Set the database clock, for a simulation whose database clock runs on its own.
	 * @param databaseMillis epoch milliseconds
	 */
	public synchronized void setDatabaseMillis(long databaseMillis) {
		this.databaseMillis = databaseMillis;
	}

	/**
	 * A copy of the rows and the clock, for a simulation's replica.
	 * @return the copy
	 */
	public synchronized InMemoryLockRepository copy() {
		InMemoryLockRepository copy = new InMemoryLockRepository();
		copy.rows.putAll(this.rows);
		copy.databaseMillis = this.databaseMillis;
		return copy;
	}

	public synchronized @Nullable Row row(String key) {
		return this.rows.get(key);
	}

	@Override
	public synchronized OptionalLong tryLock(String key, String nodeId, Duration atMostFor) {
		write();
		Row row = this.rows.get(key);
		if (row != null && row.expiresAt > this.databaseMillis) {
			return answer(OptionalLong.empty());
		}
		if (row != null) {
			waitForFence(key);
		}
		long term = (row != null) ? Math.max(row.term + 1, this.databaseMillis) : this.databaseMillis;
		this.rows.put(key, new Row(nodeId, term, this.databaseMillis, this.databaseMillis,
				this.databaseMillis + atMostFor.toMillis(), false));
		return answer(OptionalLong.of(term));
	}

	/** One read, as the JDBC repository sends: missing and expired rows are free. */
	@Override
	public synchronized List<String> freeLocks(List<String> keys) {
		statement();
		return keys.stream().filter((key) -> {
			Row row = this.rows.get(key);
			return row == null || row.expiresAt <= this.databaseMillis;
		}).toList();
	}

	@Override
	public synchronized boolean extendLock(String key, String nodeId, long term, Duration atMostFor) {
		write();
		Row row = this.rows.get(key);
		if (!heldBy(row, nodeId, term) || row.released) {
			return answer(false);
		}
		this.rows.put(key, new Row(row.holder, row.term, row.acquiredAt, this.databaseMillis,
				this.databaseMillis + atMostFor.toMillis(), false));
		return answer(true);
	}

	/** One statement for all, as the JDBC repository sends. */
	@Override
	public synchronized int extendLocks(String nodeId, Map<String, Long> heldTerms, Duration atMostFor) {
		write();
		int extended = 0;
		for (Map.Entry<String, Long> held : heldTerms.entrySet()) {
			Row row = this.rows.get(held.getKey());
			if (heldBy(row, nodeId, held.getValue()) && !row.released) {
				this.rows.put(held.getKey(), new Row(row.holder, row.term, row.acquiredAt, this.databaseMillis,
						this.databaseMillis + atMostFor.toMillis(), false));
				extended++;
			}
		}
		return answer(extended);
	}

	private boolean heldBy(@Nullable Row row, String nodeId, long term) {
		return row != null && nodeId.equals(row.holder) && row.term == term && row.expiresAt > this.databaseMillis;
	}

	@Override
	public synchronized boolean releaseLock(String key, String nodeId, long term, Duration atLeastFor,
			Duration atLeastForAfterExtension) {
		write();
		Row row = this.rows.get(key);
		if (!heldBy(row, nodeId, term)) {
			return answer(false);
		}
		// As the database does: a time after now counts as now.
		long atLeastUntil = Math.max(Math.min(row.acquiredAt, this.databaseMillis) + atLeastFor.toMillis(),
				Math.min(row.extendedAt, this.databaseMillis) + atLeastForAfterExtension.toMillis());
		long expiresAt = Math.min(row.expiresAt, Math.max(atLeastUntil, this.databaseMillis));
		this.rows.put(key, new Row(row.holder, row.term, row.acquiredAt, row.extendedAt, expiresAt, true));
		return answer(true);
	}

	/**
	 * The work runs while the fence row is held, not this repository's monitor: the
	 * holder's extensions and release, from any thread, go through meanwhile, and a
	 * change of holder fails as it does on a database ({@link #waitForFence}).
	 */
	@Override
	public <T extends @Nullable Object> T runLockFenced(String key, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback) {
		synchronized (this) {
			statement();
			Row row = this.rows.get(key);
			if (!heldBy(row, nodeId, term)) {
				throw new LockNotHeldException(key, term, "refused by the fence");
			}
			this.fenceHolds.merge(key, 1, Integer::sum);
		}
		try {
			return callback.doInFence(term);
		}
		finally {
			synchronized (this) {
				this.fenceHolds.computeIfPresent(key, (held, holds) -> (holds > 1) ? holds - 1 : null);
			}
		}
	}

	/**
	 * A change of holder (a take, an operator's release) writes the lock's fence row, and
	 * so waits for the fenced work that holds it, as the JDBC statements do: here the
	 * wait outlasts the statement timeout, so the statement fails with the timeout and
	 * changes nothing. (On PostgreSQL a take skips the lock instead, which the callers
	 * see as a lock held.)
	 */
	private void waitForFence(String key) {
		if (this.fenceHolds.containsKey(key)) {
			throw new IllegalStateException("lock wait on the fence row of '" + key + "' timed out",
					new SQLTimeoutException("statement timed out"));
		}
	}

	@Override
	public synchronized List<LockState> findLocks() {
		statement();
		return this.rows.entrySet()
			.stream()
			.sorted(Map.Entry.comparingByKey())
			.map((entry) -> new LockState(entry.getKey().substring(ClusterLocks.KEY_PREFIX.length()),
					entry.getValue().holder, entry.getValue().term, Instant.ofEpochMilli(entry.getValue().acquiredAt),
					Instant.ofEpochMilli(entry.getValue().expiresAt), entry.getValue().expiresAt > this.databaseMillis,
					Instant.ofEpochMilli(this.databaseMillis)))
			.toList();
	}

	@Override
	public synchronized OptionalLong forceRelease(String key) {
		write();
		Row row = this.rows.get(key);
		if (row == null) {
			return answer(OptionalLong.empty());
		}
		waitForFence(key);
		long term = Math.max(row.term + 1, this.databaseMillis);
		this.rows.put(key, new Row(null, term, row.acquiredAt, row.extendedAt, this.databaseMillis, row.released));
		return answer(OptionalLong.of(term));
	}

	/** A statement that writes a lock's row is about to be applied. */
	private void write() {
		statement();
		interleaved(true);
	}

	/** The answer of a statement that wrote a lock's row, once it was applied. */
	private <T> T answer(T answer) {
		interleaved(false);
		return answer;
	}

	private void statement() {
		this.statements++;
		RuntimeException failure = this.failure;
		if (failure != null) {
			throw failure;
		}
	}

	private record Interleaving(boolean beforeApplying, Runnable other) {
	}

	/**
	 * A lock's row.
	 *
	 * @param holder the holder's node id, null after an operator's release
	 * @param term the term of the acquisition
	 * @param acquiredAt database time of the acquisition
	 * @param extendedAt database time of the last extension
	 * @param expiresAt database time the lock expires at
	 * @param released whether its holder released it
	 */
	public record Row(@Nullable String holder, long term, long acquiredAt, long extendedAt, long expiresAt,
			boolean released) {
	}

}
