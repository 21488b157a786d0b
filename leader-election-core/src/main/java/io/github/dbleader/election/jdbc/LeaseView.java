package io.github.dbleader.election.jdbc;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import io.github.dbleader.election.LeaseReads;
import io.github.dbleader.election.LeaseState;
import org.jspecify.annotations.Nullable;

/**
 * One node's view of the lease rows of its elections, kept from one heartbeat round to
 * the next so that a round reads only what needs it, not every row (issue #25, stage 2 of
 * {@code docs/contributing/session-leases.md}). Since leases live on their holders'
 * sessions, a lease row changes only with a change of holder or a request; each such
 * write marks the row with the database time ({@code changed_at}). A round then reads, in
 * one statement ({@link LeaseRows#view}):
 * <ul>
 * <li>every node row (the sessions, a handful), with the database clock and the identity
 * of the server that answers;
 * <li>the lease rows changed since a little before the last read
 * ({@link #OVERLAP_MILLIS}: a change that committed a moment after the time it was marked
 * with is read too);
 * <li>by key: the elections joined since, those whose change of holder this node sent
 * (applied or not), and the next slice of all of them, so that every lease is read again
 * within a bounded number of rounds whatever a change's commit was delayed by.
 * </ul>
 * Every lease then gets its state from its row as last read and its holder's session as
 * read now, exactly as the single read joining both did ({@link #state}).
 *
 * <p>
 * The view is read whole again (its elections from the candidates table, with their rows)
 * when it is new, when its elections are few ({@code readInFullUpTo}: then reading them
 * all costs no more than keeping track), when the answering server changed (a failover:
 * the new one may have other data), when the database clock went back, when a take-over
 * of one of this node's leases wrote its session (the node's {@code takeovers} moved: the
 * holder must see every lease it lost before it counts its refresh as renewing the rest,
 * I2), and when more rows are due by key than one statement lists.
 *
 * <p>
 * What the view misses costs no safety: every change of holder is conditional on the
 * row's version and its session as the database has them (I3, I4), so a change decided on
 * a stale row is not applied, and the election's row is read by key at the next round.
 */
final class LeaseView implements LeaseReads {

	/**
	 * Rows changed up to this long before the last read are read again: a change marked
	 * with the database clock when its statement ran may commit a moment later (and on
	 * Galera, reach this node later), after a read that started between the two.
	 */
	static final long OVERLAP_MILLIS = 2_000;

	/**
	 * Up to this many elections, a round reads them all: as cheap as reading what
	 * changed.
	 */
	static final int READ_IN_FULL_UP_TO = 1_000;

	/** How many elections a round reads again by key, besides what changed. */
	static final int RESCANNED_PER_ROUND = 1_000;

	/**
	 * Most keys one read lists; the elections due beyond them wait for the next reads.
	 */
	static final int MAX_KEYS_PER_READ = 10_000;

	/**
	 * Most elections one statement of a whole read reads: a view of more is read in pages
	 * of its elections in name order, each far below the statement timeout.
	 */
	static final int PAGE = 10_000;

	/** Most distinct repeated values a view keeps one instance of ({@link #newRead}). */
	static final int MAX_SHARED_VALUES = 10_000;

	private final int readInFullUpTo;

	private final int rescannedPerRound;

	private final int page;

	/**
	 * The node's elections: those it is a candidate of, as last read whole and joined
	 * since.
	 */
	private final NavigableSet<String> elections = new TreeSet<>();

	/** The lease rows of the elections that have one, as last read. */
	private final Map<String, Row> rows = new HashMap<>();

	/** Elections whose rows the next read reads by key. */
	private final Set<String> due = new HashSet<>();

	private boolean whole;

	/** The database clock of the last read applied. */
	private long lastReadMillis;

	/**
	 * The sessions and clock of the last read applied, without its rows: for
	 * {@link #lease}.
	 */
	private @Nullable Read sessionsRead;

	private @Nullable String server;

	private long takeovers = -1;

	/** Where the next slice of elections read again by key starts, in name order. */
	private String rescanFrom = "";

	/**
	 * The values that repeat across rows, one instance of each for every read of this
	 * view ({@link Read#shared}): the rows kept from earlier reads then compare with the
	 * current sessions by reference.
	 */
	private final Map<String, String> sharedValues = new ConcurrentHashMap<>();

	LeaseView(int readInFullUpTo, int rescannedPerRound, int page) {
		this.readInFullUpTo = readInFullUpTo;
		this.rescannedPerRound = rescannedPerRound;
		this.page = page;
	}

	/**
	 * What the next read should be, decided before it is sent: on what the last read saw
	 * and the elections due since. A read that then shows a reason to read whole
	 * ({@link #needsWhole}) is followed by a whole one.
	 * @return the plan
	 */
	synchronized Plan plan() {
		if (!this.whole || this.elections.size() <= this.readInFullUpTo) {
			return wholePlan();
		}
		Set<String> keys = new TreeSet<>();
		for (Iterator<String> due = this.due.iterator(); due.hasNext()
				&& keys.size() < MAX_KEYS_PER_READ - this.rescannedPerRound;) {
			keys.add(due.next());
		}
		// The next slice in name order, from where the last one ended; after the last
		// name, the first again.
		Iterator<String> next = this.elections.tailSet(this.rescanFrom, false).iterator();
		String last = "";
		for (int taken = 0; taken < this.rescannedPerRound && next.hasNext(); taken++) {
			last = next.next();
			keys.add(last);
		}
		return new Plan(false, false, this.page, this.lastReadMillis - OVERLAP_MILLIS, List.copyOf(keys),
				next.hasNext() ? last : "");
	}

	/**
	 * A read to fill in, sharing its repeated values with this view's earlier reads.
	 * @return an empty read
	 */
	Read newRead() {
		// Bounded: node ids, instance ids and server identities are few, unless many
		// instances came and went; then they are shared anew.
		if (this.sharedValues.size() > MAX_SHARED_VALUES) {
			this.sharedValues.clear();
		}
		return new Read(this.sharedValues);
	}

	/**
	 * A read of the whole view: in pages where the node has more elections than one
	 * statement reads (as far as it knows: those it joined).
	 * @return the plan
	 */
	synchronized Plan wholePlan() {
		return new Plan(true, this.elections.size() > this.page, this.page, 0, List.of(), "");
	}

	/**
	 * Whether what a read answered asks for the view to be read whole at once, before its
	 * rows are taken: the server or the clock changed, or this node's leases were taken
	 * over.
	 * @param read what the read answered
	 * @param nodeId this node
	 * @return {@code true} if the rows of a plan that was not whole must not be applied
	 */
	synchronized boolean needsWhole(Read read, String nodeId) {
		Session own = read.sessions().get(nodeId);
		long ownTakeovers = (own != null) ? own.takeovers() : -1;
		return !Objects.equals(read.server(), this.server) || read.now() < this.lastReadMillis
				|| ownTakeovers != this.takeovers;
	}

	/**
	 * @return the lease of every election that has a row, as the last read left it
	 */
	synchronized List<LeaseState> leases() {
		Read read = this.sessionsRead;
		List<LeaseState> states = new ArrayList<>(this.rows.size());
		if (read != null) {
			for (Row row : this.rows.values()) {
				states.add(state(row, read));
			}
		}
		return states;
	}

	/**
	 * Take what a read answered, composing no lease: each is composed when asked for
	 * ({@link #lease}), and lives no longer than the caller keeps it.
	 * @param plan the plan the read followed
	 * @param read what it answered
	 * @param nodeId this node
	 */
	synchronized void take(Plan plan, Read read, String nodeId) {
		if (plan.whole()) {
			// The names as the node joined them, where it did: the heartbeat asks for
			// each lease by its election's own name, and the same instance is found
			// without comparing the characters (100,000 comparisons a round otherwise).
			List<String> members = new ArrayList<>(read.members().size());
			for (String member : read.members()) {
				members.add(known(member));
			}
			this.elections.clear();
			this.rows.clear();
			this.due.clear();
			this.elections.addAll(members);
			for (Row row : read.rows()) {
				String election = known(row.election());
				this.rows.put(election, row.named(election));
			}
			this.whole = true;
			this.rescanFrom = "";
		}
		else {
			Set<String> returned = new HashSet<>();
			for (Row row : read.rows()) {
				// The view's own instance of the name: rows read again every few hundred
				// rounds would otherwise each bring a copy of it.
				String election = this.elections.ceiling(row.election());
				if (row.election().equals(election)) {
					returned.add(election);
					// A row read again unchanged (most of a slice) stays the one kept:
					// replacing
					// it would move a thousand rows a round into the old generation.
					Row kept = this.rows.get(election);
					if (kept == null || !kept.equals(row)) {
						this.rows.put(election, row.named(election));
					}
				}
			}
			// Rows read by key that did not come back have none (never created, or
			// purged).
			for (String key : plan.keys()) {
				this.due.remove(key);
				if (!returned.contains(key)) {
					this.rows.remove(key);
				}
			}
			this.rescanFrom = plan.rescanNext();
		}
		Session own = read.sessions().get(nodeId);
		this.takeovers = (own != null) ? own.takeovers() : -1;
		this.server = read.server();
		this.lastReadMillis = read.now();
		this.sessionsRead = read.sessionsOnly();
	}

	/**
	 * The view's own instance of an election's name, if it knows the election, else the
	 * name given.
	 */
	private String known(String name) {
		String known = this.elections.ceiling(name);
		return name.equals(known) ? known : name;
	}

	/**
	 * An election's lease as the last read left it, composed now from its row and the
	 * sessions of that read.
	 */
	@Override
	public synchronized @Nullable LeaseState lease(String election) {
		Row row = this.rows.get(election);
		Read read = this.sessionsRead;
		return (row != null && read != null) ? state(row, read) : null;
	}

	/** The node joined these elections: their rows are read by key at the next read. */
	synchronized void joined(Collection<String> joined) {
		this.elections.addAll(joined);
		this.due.addAll(joined);
	}

	/** The node left an election. */
	synchronized void left(String election) {
		this.elections.remove(election);
		this.rows.remove(election);
		this.due.remove(election);
	}

	/** The node left every election but these. */
	synchronized void retain(Collection<String> running) {
		Set<String> keep = new HashSet<>(running);
		this.elections.retainAll(keep);
		this.rows.keySet().retainAll(keep);
		this.due.retainAll(keep);
	}

	/**
	 * A change of holder or a request was sent for these elections: read their rows by
	 * key.
	 */
	synchronized void changing(Collection<String> changing) {
		for (String election : changing) {
			if (this.elections.contains(election)) {
				this.due.add(election);
			}
		}
	}

	/** Read the view whole at the next read: the node's candidacies may have changed. */
	synchronized void invalidate() {
		this.whole = false;
	}

	/**
	 * A lease as the read joining the lease row with its holder's node row would have
	 * answered it ({@link LeaseRows#selectElections}): alive while its session is,
	 * renewed when the session was.
	 */
	static LeaseState state(Row row, Read read) {
		Session session = (row.leaderId() != null) ? read.sessions().get(row.leaderId()) : null;
		String instance = row.leaderInstance();
		boolean current = session != null && instance != null && instance.equals(session.instanceId());
		boolean ended = session != null && instance != null && instance.equals(session.previousInstance());
		long expiresAt = row.expiresAt().toEpochMilli();
		boolean longer = current && session.expiresAt() > expiresAt;
		long now = read.now();
		boolean expired = expiresAt <= now && !(current && session.expiresAt() > now);
		long holderVersion = current ? session.version() : ended ? session.previousVersion() : -1;
		// The instants are the row's and the read's own, shared by every lease composed
		// from them: a node with 100,000 elections composes as many states every round.
		return new LeaseState(row.election(), row.leaderId(), row.term(), row.version(), row.acquiredAt(),
				longer ? session.lastSeenInstant() : row.renewedAt(),
				longer ? session.expiresAtInstant() : row.expiresAt(), row.handoverTo(), row.reelectionRequested(),
				row.yieldedBy(), expired, row.serverIdentity() != null && row.serverIdentity().equals(read.server()),
				read.time(), holderVersion, !current && ended, read.server(), current ? session.rank() : null);
	}

	/**
	 * What the next read reads.
	 *
	 * @param whole whether it reads the view whole
	 * @param paged whether a whole read goes in pages
	 * @param pageSize most elections per page
	 * @param since the rows changed from this database time on, where not whole
	 * @param keys the elections read by key, where not whole
	 * @param rescanNext where the slice of the following read starts
	 */
	record Plan(boolean whole, boolean paged, int pageSize, long since, List<String> keys, String rescanNext) {
	}

	/**
	 * What one read answered, filled in as its rows are mapped
	 * ({@link LeaseRows#mapView}).
	 */
	static final class Read {

		private long now = Long.MIN_VALUE;

		private @Nullable String server;

		private final Map<String, Session> sessions = new HashMap<>();

		private final List<String> members = new ArrayList<>();

		private final List<Row> rows = new ArrayList<>();

		/**
		 * One instance of each node id, instance id and server identity: a whole read
		 * maps a row per election, and these few values repeat in every one, and in every
		 * read.
		 */
		private final Map<String, String> values;

		private @Nullable Instant time;

		/** A read of its own, sharing no values with others. */
		Read() {
			this(new HashMap<>());
		}

		private Read(Map<String, String> values) {
			this.values = values;
		}

		/**
		 * @return the same read without its rows: its sessions, clock and server
		 */
		Read sessionsOnly() {
			Read read = new Read(this.values);
			read.now = this.now;
			read.server = this.server;
			read.sessions.putAll(this.sessions);
			return read;
		}

		/**
		 * Take the database clock and the answering server's identity from a node row.
		 */
		void clock(long now, @Nullable String server) {
			// The latest, where the clock is read per row (PostgreSQL's
			// clock_timestamp()).
			this.now = Math.max(this.now, now);
			this.server = server;
		}

		/**
		 * @return the database clock
		 */
		long now() {
			return this.now;
		}

		/**
		 * @return the database clock as an instant, one for every lease of the read
		 */
		Instant time() {
			Instant time = this.time;
			if (time == null || time.toEpochMilli() != this.now) {
				time = Instant.ofEpochMilli(this.now);
				this.time = time;
			}
			return time;
		}

		/**
		 * The one instance of a value that repeats across the rows of the read.
		 * @param value a node id, instance id or server identity as the driver returned
		 * it
		 * @return an equal string, the same instance for every row
		 */
		@Nullable String shared(@Nullable String value) {
			return (value != null) ? this.values.computeIfAbsent(value, (first) -> first) : null;
		}

		/**
		 * @return the identity of the server that answered
		 */
		@Nullable String server() {
			return this.server;
		}

		/**
		 * @return the node rows, by node id
		 */
		Map<String, Session> sessions() {
			return this.sessions;
		}

		/**
		 * @return the node's elections, where the read was whole
		 */
		List<String> members() {
			return this.members;
		}

		/**
		 * @return the lease rows read
		 */
		List<Row> rows() {
			return this.rows;
		}

	}

	/**
	 * A node row: a session.
	 *
	 * @param instanceId the running instance that uses the node id
	 * @param version moved on by every refresh
	 * @param expiresAt when the session runs out unless refreshed
	 * @param lastSeen when it was last refreshed
	 * @param previousInstance the instance whose session ended when this one took the
	 * node id over
	 * @param previousVersion the version that session ended at
	 * @param takeovers how many take-overs wrote the row
	 * @param rank the rank of the instance that uses the node id, or {@code null} where
	 * the read did not have it
	 * @param expiresAtInstant {@code expiresAt} as an instant, shared by the leases that
	 * live on it
	 * @param lastSeenInstant {@code lastSeen} as an instant, shared likewise
	 */
	record Session(String instanceId, long version, long expiresAt, long lastSeen, @Nullable String previousInstance,
			long previousVersion, long takeovers, @Nullable String rank, Instant expiresAtInstant,
			Instant lastSeenInstant) {

		Session(String instanceId, long version, long expiresAt, long lastSeen, @Nullable String previousInstance,
				long previousVersion, long takeovers, @Nullable String rank) {
			this(instanceId, version, expiresAt, lastSeen, previousInstance, previousVersion, takeovers, rank,
					Instant.ofEpochMilli(expiresAt), Instant.ofEpochMilli(lastSeen));
		}

	}

	/**
	 * A lease row as stored, its times as instants: a row is kept from one read to the
	 * next, and every round composes its lease from it.
	 *
	 * @param election the election
	 * @param leaderId the holder, if any
	 * @param term the term
	 * @param version the row's version
	 * @param acquiredAt when the holder acquired it
	 * @param renewedAt when it was last renewed on its own
	 * @param expiresAt its own expiry
	 * @param handoverTo a requested hand-over's target
	 * @param reelectionRequested whether a re-election was requested
	 * @param yieldedBy the node that last gave it up
	 * @param serverIdentity the server that granted it
	 * @param leaderInstance the instance whose session it lives on
	 */
	record Row(String election, @Nullable String leaderId, long term, long version, @Nullable Instant acquiredAt,
			@Nullable Instant renewedAt, Instant expiresAt, @Nullable String handoverTo, boolean reelectionRequested,
			@Nullable String yieldedBy, @Nullable String serverIdentity, @Nullable String leaderInstance) {

		/** The same row, named by the given instance of its election's name. */
		Row named(String name) {
			return (name == this.election) ? this
					: new Row(name, this.leaderId, this.term, this.version, this.acquiredAt, this.renewedAt,
							this.expiresAt, this.handoverTo, this.reelectionRequested, this.yieldedBy,
							this.serverIdentity, this.leaderInstance);
		}

	}

}
