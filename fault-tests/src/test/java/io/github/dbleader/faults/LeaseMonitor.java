package io.github.dbleader.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Watches the lease row from the test JVM over a direct connection (no proxy), every
 * {@link #PERIOD_MILLIS} ms, and keeps every version it sees, and every renewal (a later
 * expiry, from the holder's session), with the database time it was first seen. A term is
 * therefore known to have been committed at the latest when it was first seen: that time
 * is what a stale write is measured against.
 */
final class LeaseMonitor implements AutoCloseable {

	static final long PERIOD_MILLIS = 20;

	private final FaultDatabase database;

	private final String table;

	private final List<Sighting> sightings = new ArrayList<>();

	private final Thread thread;

	private volatile boolean running = true;

	LeaseMonitor(FaultDatabase database) {
		this(database, FaultDatabase.LEASE_TABLE);
	}

	LeaseMonitor(FaultDatabase database, String table) {
		this.database = database;
		this.table = table;
		this.thread = new Thread(this::poll, "lease-monitor");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	private void poll() {
		String query = "SELECT leader_id, term, version, acquired_at, renewed_at, expires_at, handover_to, "
				+ "reelection_requested, " + this.database.nowMillis() + " AS db_now FROM "
				+ FaultDatabase.leaseView(this.table) + " WHERE election_name = ?";
		while (this.running) {
			try (Connection connection = this.database.connect();
					PreparedStatement statement = connection.prepareStatement(query)) {
				statement.setString(1, FaultDatabase.ELECTION);
				while (this.running) {
					try (ResultSet result = statement.executeQuery()) {
						if (result.next()) {
							record(new Sighting(result.getLong("db_now"), result.getString("leader_id"),
									result.getLong("term"), result.getLong("version"), result.getLong("acquired_at"),
									result.getLong("renewed_at"), result.getLong("expires_at"),
									result.getString("handover_to"), result.getBoolean("reelection_requested")));
						}
					}
					Thread.sleep(PERIOD_MILLIS);
				}
			}
			catch (SQLException ex) {
				// No table yet, or the connection failed: try again.
				sleep();
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	private static void sleep() {
		try {
			Thread.sleep(PERIOD_MILLIS * 5);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private synchronized void record(Sighting sighting) {
		Sighting last = this.sightings.isEmpty() ? null : this.sightings.get(this.sightings.size() - 1);
		// A renewal moves the holder's session, not the lease row: its expiry tells it.
		if (last == null || last.version() != sighting.version() || last.term() != sighting.term()
				|| last.expiresAt() != sighting.expiresAt()) {
			this.sightings.add(sighting);
		}
	}

	/**
	 * @return the latest version seen, if any
	 */
	synchronized Optional<Sighting> latest() {
		return this.sightings.isEmpty() ? Optional.empty() : Optional.of(this.sightings.get(this.sightings.size() - 1));
	}

	/**
	 * Every version first seen at or after a database time.
	 * @param fromDbMillis database time
	 * @return the versions in order
	 */
	synchronized List<Sighting> since(long fromDbMillis) {
		return this.sightings.stream().filter((sighting) -> sighting.seenAt() >= fromDbMillis).toList();
	}

	/**
	 * The first sighting of each term, in order of terms.
	 * @return one sighting per term
	 */
	synchronized List<Sighting> terms() {
		List<Sighting> terms = new ArrayList<>();
		for (Sighting sighting : this.sightings) {
			if (terms.isEmpty() || terms.get(terms.size() - 1).term() != sighting.term()) {
				terms.add(sighting);
			}
		}
		return terms;
	}

	@Override
	public void close() {
		this.running = false;
		this.thread.interrupt();
		try {
			this.thread.join(5000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * One version of the lease row.
	 *
	 * @param seenAt database time of the read that first saw it
	 * @param leaderId leader, {@code null} if vacant
	 * @param term term
	 * @param version version
	 * @param acquiredAt when the term began (database time of the statement that took it)
	 * @param renewedAt last renewal
	 * @param expiresAt expiry
	 * @param handoverTo pending hand-over target
	 * @param reelectionRequested whether a re-election is pending
	 */
	record Sighting(long seenAt, String leaderId, long term, long version, long acquiredAt, long renewedAt,
			long expiresAt, String handoverTo, boolean reelectionRequested) {
	}

}
