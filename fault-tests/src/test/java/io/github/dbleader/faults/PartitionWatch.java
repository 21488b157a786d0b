package io.github.dbleader.faults;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Watches the lease rows of a partition group from the test JVM over a direct connection,
 * every {@link #PERIOD_MILLIS} ms, as {@link LeaseMonitor} does for one election: it
 * keeps, per partition, every change of its live owner (the leader of an unexpired lease)
 * or term with the database time it was first seen. From those it tells who owns what
 * now, how often each partition moved since a time, and when each term was first seen
 * (what a stale write is measured against).
 */
final class PartitionWatch implements AutoCloseable {

	static final long PERIOD_MILLIS = 50;

	private final FaultDatabase database;

	private final String prefix;

	/** Changes by partition number; guarded by {@code this}. */
	private final Map<Integer, List<Change>> changes = new TreeMap<>();

	/** The live owner of each partition at the latest read; guarded by {@code this}. */
	private Map<Integer, String> latest = Map.of();

	private final Thread thread;

	private volatile boolean running = true;

	PartitionWatch(FaultDatabase database, String group) {
		this.database = database;
		this.prefix = "partition:" + group + ":";
		this.thread = new Thread(this::poll, "partition-watch");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	private void poll() {
		String query = "SELECT election_name, leader_id, term, version, acquired_at, renewed_at, expires_at, handover_to, "
				+ "reelection_requested, " + this.database.nowMillis() + " AS db_now FROM "
				+ FaultDatabase.leaseView(FaultDatabase.LEASE_TABLE) + " WHERE election_name LIKE ?";
		while (this.running) {
			try (Connection connection = this.database.connect();
					PreparedStatement statement = connection.prepareStatement(query)) {
				statement.setString(1, this.prefix + "%");
				while (this.running) {
					List<LeaseMonitor.Sighting> rows = new ArrayList<>();
					List<Integer> partitions = new ArrayList<>();
					try (ResultSet result = statement.executeQuery()) {
						while (result.next()) {
							partitions.add(Integer
								.parseInt(result.getString("election_name").substring(this.prefix.length())));
							rows.add(new LeaseMonitor.Sighting(result.getLong("db_now"), result.getString("leader_id"),
									result.getLong("term"), result.getLong("version"), result.getLong("acquired_at"),
									result.getLong("renewed_at"), result.getLong("expires_at"),
									result.getString("handover_to"), result.getBoolean("reelection_requested")));
						}
					}
					record(partitions, rows);
					Thread.sleep(PERIOD_MILLIS);
				}
			}
			catch (SQLException ex) {
				// No table yet, or the connection failed: try again.
				pause();
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	private static void pause() {
		try {
			Thread.sleep(PERIOD_MILLIS * 2);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private synchronized void record(List<Integer> partitions, List<LeaseMonitor.Sighting> rows) {
		Map<Integer, String> owners = new HashMap<>();
		for (int i = 0; i < rows.size(); i++) {
			LeaseMonitor.Sighting row = rows.get(i);
			String owner = (row.leaderId() != null && row.expiresAt() > row.seenAt()) ? row.leaderId() : null;
			if (owner != null) {
				owners.put(partitions.get(i), owner);
			}
			List<Change> list = this.changes.computeIfAbsent(partitions.get(i), (partition) -> new ArrayList<>());
			Change last = list.isEmpty() ? null : list.get(list.size() - 1);
			if (last == null || !Objects.equals(last.owner(), owner) || last.lease().term() != row.term()) {
				list.add(new Change(owner, row));
			}
		}
		this.latest = owners;
	}

	/**
	 * @return the partitions each node owns at the latest read, by node id
	 */
	synchronized Map<String, Set<Integer>> owners() {
		Map<String, Set<Integer>> owners = new TreeMap<>();
		this.latest
			.forEach((partition, owner) -> owners.computeIfAbsent(owner, (node) -> new TreeSet<>()).add(partition));
		return owners;
	}

	/**
	 * How many times each partition moved (a new owner other than its previous one) at or
	 * after a database time; partitions that did not move are left out.
	 * @param fromDbMillis database time
	 * @return moves by partition
	 */
	synchronized Map<Integer, Integer> moves(long fromDbMillis) {
		Map<Integer, Integer> moves = new TreeMap<>();
		this.changes.forEach((partition, list) -> {
			String owner = null;
			for (Change change : list) {
				if (change.owner() == null) {
					continue;
				}
				if (change.lease().seenAt() >= fromDbMillis && owner != null && !owner.equals(change.owner())) {
					moves.merge(partition, 1, Integer::sum);
				}
				owner = change.owner();
			}
		});
		return moves;
	}

	/**
	 * When the last partition got a new owner (other than its previous one, or its first)
	 * at or after a database time.
	 * @param fromDbMillis database time
	 * @return database time of that read, or {@code fromDbMillis} if none did
	 */
	synchronized long lastOwnerChange(long fromDbMillis) {
		long last = fromDbMillis;
		for (List<Change> list : this.changes.values()) {
			String owner = null;
			for (Change change : list) {
				if (change.owner() == null) {
					continue;
				}
				if (change.lease().seenAt() >= fromDbMillis && !change.owner().equals(owner)) {
					last = Math.max(last, change.lease().seenAt());
				}
				owner = change.owner();
			}
		}
		return last;
	}

	/**
	 * When the first partition lost its owner (released, expired or moved) at or after a
	 * database time.
	 * @param fromDbMillis database time
	 * @return database time of that read, or {@code Long.MAX_VALUE} if none did
	 */
	synchronized long firstOwnerChange(long fromDbMillis) {
		long first = Long.MAX_VALUE;
		for (List<Change> list : this.changes.values()) {
			for (int i = 1; i < list.size(); i++) {
				Change change = list.get(i);
				if (change.lease().seenAt() >= fromDbMillis && list.get(i - 1).owner() != null
						&& !list.get(i - 1).owner().equals(change.owner())) {
					first = Math.min(first, change.lease().seenAt());
				}
			}
		}
		return first;
	}

	/**
	 * @return the first sighting of each term, by partition election name, in order
	 */
	synchronized Map<String, List<LeaseMonitor.Sighting>> terms() {
		Map<String, List<LeaseMonitor.Sighting>> terms = new TreeMap<>();
		this.changes.forEach((partition, list) -> {
			List<LeaseMonitor.Sighting> first = new ArrayList<>();
			for (Change change : list) {
				if (first.isEmpty() || first.get(first.size() - 1).term() != change.lease().term()) {
					first.add(change.lease());
				}
			}
			terms.put(this.prefix + partition, first);
		});
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
	 * A new live owner or term of one partition.
	 *
	 * @param owner the leader of the unexpired lease, {@code null} if none
	 * @param lease the row as read
	 */
	private record Change(String owner, LeaseMonitor.Sighting lease) {
	}

}
