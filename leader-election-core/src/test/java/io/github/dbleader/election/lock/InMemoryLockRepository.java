package io.github.dbleader.election.lock;

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
 * counting the statements a real repository would send.
 */
class InMemoryLockRepository implements LockRepository {

	private final Map<String, Row> rows = new HashMap<>();

	private long databaseMillis = 1_700_000_000_000L;

	int statements;

	@Nullable RuntimeException failure;

	synchronized void advanceDatabaseClock(Duration duration) {
		this.databaseMillis += duration.toMillis();
	}

	synchronized @Nullable Row row(String key) {
		return this.rows.get(key);
	}

	@Override
	public synchronized OptionalLong tryLock(String key, String nodeId, Duration atMostFor) {
		statement();
		Row row = this.rows.get(key);
		if (row != null && row.expiresAt > this.databaseMillis) {
			return OptionalLong.empty();
		}
		long term = (row != null) ? Math.max(row.term + 1, this.databaseMillis) : this.databaseMillis;
		this.rows.put(key, new Row(nodeId, term, this.databaseMillis, this.databaseMillis,
				this.databaseMillis + atMostFor.toMillis(), false));
		return OptionalLong.of(term);
	}

	@Override
	public synchronized boolean extendLock(String key, String nodeId, long term, Duration atMostFor) {
		statement();
		Row row = this.rows.get(key);
		if (!heldBy(row, nodeId, term) || row.released) {
			return false;
		}
		this.rows.put(key, new Row(row.holder, row.term, row.acquiredAt, this.databaseMillis,
				this.databaseMillis + atMostFor.toMillis(), false));
		return true;
	}

	/** One statement for all, as the JDBC repository sends. */
	@Override
	public synchronized int extendLocks(String nodeId, Map<String, Long> heldTerms, Duration atMostFor) {
		statement();
		int extended = 0;
		for (Map.Entry<String, Long> held : heldTerms.entrySet()) {
			Row row = this.rows.get(held.getKey());
			if (heldBy(row, nodeId, held.getValue()) && !row.released) {
				this.rows.put(held.getKey(), new Row(row.holder, row.term, row.acquiredAt, this.databaseMillis,
						this.databaseMillis + atMostFor.toMillis(), false));
				extended++;
			}
		}
		return extended;
	}

	private boolean heldBy(@Nullable Row row, String nodeId, long term) {
		return row != null && row.holder.equals(nodeId) && row.term == term && row.expiresAt > this.databaseMillis;
	}

	@Override
	public synchronized boolean releaseLock(String key, String nodeId, long term, Duration atLeastFor,
			Duration atLeastForAfterExtension) {
		statement();
		Row row = this.rows.get(key);
		if (!heldBy(row, nodeId, term)) {
			return false;
		}
		// As the database does: a time after now counts as now.
		long atLeastUntil = Math.max(Math.min(row.acquiredAt, this.databaseMillis) + atLeastFor.toMillis(),
				Math.min(row.extendedAt, this.databaseMillis) + atLeastForAfterExtension.toMillis());
		long expiresAt = Math.min(row.expiresAt, Math.max(atLeastUntil, this.databaseMillis));
		this.rows.put(key, new Row(row.holder, row.term, row.acquiredAt, row.extendedAt, expiresAt, true));
		return true;
	}

	@Override
	public synchronized <T extends @Nullable Object> T runLockFenced(String key, String nodeId, long term,
			Duration maxHoldTime, FencedCallback<T> callback) {
		statement();
		Row row = this.rows.get(key);
		if (!heldBy(row, nodeId, term)) {
			throw new LockNotHeldException(key, term, "refused by the fence");
		}
		return callback.doInFence(term);
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
		statement();
		Row row = this.rows.get(key);
		if (row == null) {
			return OptionalLong.empty();
		}
		long term = Math.max(row.term + 1, this.databaseMillis);
		this.rows.put(key, new Row("", term, row.acquiredAt, row.extendedAt, this.databaseMillis, row.released));
		return OptionalLong.of(term);
	}

	private void statement() {
		this.statements++;
		RuntimeException failure = this.failure;
		if (failure != null) {
			throw failure;
		}
	}

	record Row(String holder, long term, long acquiredAt, long extendedAt, long expiresAt, boolean released) {
	}

}
