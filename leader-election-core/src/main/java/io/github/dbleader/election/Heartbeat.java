package io.github.dbleader.election;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Executor;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's heartbeat: every renew interval, one round sends the statements of all of
 * the node's elections at once and hands each election's state machine
 * ({@link ElectionLoop}) what the database answered. In steady state a round is two
 * statements whatever the number of elections (docs/explanation/invariants.md, I9), and
 * fewer:
 * <ol>
 * <li>refresh this node's one row ({@link LeaseRepository#heartbeat}), its session: every
 * round while it holds a lease, as the refresh is what keeps all of its leases alive, and
 * otherwise only in the rounds where the row would be older than half a lease by the next
 * round (every second or third round, typically): it shows that the node is alive to the
 * others, who count it gone when it is a whole lease old;
 * <li>read every lease of its elections ({@link LeaseRepository#readAll}).
 * </ol>
 * Then each state machine decides, and the changes of holder they ask for are carried out
 * in batches of one kind of up to {@value #CHANGES_PER_BATCH} (one transaction of a few
 * statements each, {@link LeaseRepository#takeOverAll} and the like): hand-overs, yields
 * and re-acquires of the leases held first, then take-overs, as many batches as the
 * round's budget allows. Creating a lease is one statement. Elections joined since the
 * last round are joined together in one statement. Rows nobody uses any more are purged
 * every ten leases.
 */
final class Heartbeat {

	private static final Logger logger = LoggerFactory.getLogger(Heartbeat.class);

	/**
	 * Most changes of holder one batch carries ({@link LeaseRepository#takeOverAll} and
	 * the like): each of its few statements then stays far below the statement timeout. A
	 * round sends take-over batches until its budget is spent, so this is what bounds the
	 * take-overs per round.
	 */
	static final int CHANGES_PER_BATCH = ElectionService.HOLDER_CHANGES_PER_BATCH;

	/**
	 * How many leases a row must have been unused before {@link LeaseRepository#purge}
	 * deletes it.
	 */
	static final int PURGE_AFTER_LEASES = 10;

	private final String nodeId;

	private final String instanceId;

	private final LeaseRepository repository;

	private final ElectionSettings settings;

	private final MonotonicClock clock;

	private final DatabaseStatus database;

	private final LeadershipListener listener;

	private final Executor notifier;

	private final Random random;

	private final long budgetNanos;

	private final long purgeIntervalNanos;

	/** The releases and removals of candidacies this node sends, and sends again. */
	private final Releases releases;

	/** Whether, as of the last round, another instance uses this node id. */
	private boolean nodeIdInUse;

	/**
	 * Whether this instance said that it waits to take over a stale row of its node id.
	 */
	private boolean nodeIdWaiting;

	/**
	 * The version of another instance's row of this node id that this instance watches,
	 * or -1: only a version seen unchanged for a whole lease on this instance's clock is
	 * taken over, as a follower takes a lease over (I3).
	 */
	private long watchedNodeVersion = -1;

	/** When this instance first saw {@link #watchedNodeVersion} (monotonic clock). */
	private long watchedNodeSinceNanos;

	/** Whether the watched row was stale on the database clock at the last read. */
	private boolean watchedNodeStale;

	/**
	 * Whether the candidacies of elections this instance does not run, which came with
	 * the node's row when this instance created or took it over, are still to be left.
	 */
	private boolean othersToLeave;

	/** Whether, and when, this instance took the node id over from another instance. */
	private boolean nodeIdTakenOver;

	private long nodeIdTakenOverNanos;

	/** Whether this instance holds the node's row, as of its last refresh. */
	private boolean rowHeld;

	/**
	 * Whether this instance learned from an answer how it came to hold the node's row
	 * (created, taken over or refreshed), since it started or last found the id in use.
	 */
	private boolean rowAnswered;

	/** When the last refresh that found the row this instance's was sent. */
	private long rowRefreshedNanos;

	/** Whether this round sent a refresh of the row: it may have moved the session on. */
	private boolean refreshSent;

	/** When this round's refresh was sent. */
	private long refreshSentNanos;

	/**
	 * The leases as the last read answered them, kept until the next read; {@code null}
	 * before the first.
	 */
	private volatile @Nullable LastRead lastRead;

	/** Whether this round's refresh found the row this instance's and moved it on. */
	private boolean refreshed;

	/**
	 * The rank of this running instance ({@link RankOrder}), written with the node's row;
	 * empty, the lowest, unless set.
	 */
	private volatile String rank = "";

	/**
	 * The last holder's rank compared with this instance's, and the answer: a follower's
	 * round compares every election's holder, and the holders of a cluster share a few
	 * ranks, so the comparison (which parses both) runs once per distinct rank in a row.
	 */
	private @Nullable String comparedRank;

	/** This instance's rank when {@link #comparedOutranks} was computed. */
	private @Nullable String comparedOwnRank;

	private boolean comparedOutranks;

	private boolean purged;

	private long lastPurgeNanos;

	/**
	 * Whether the last purge failed: a purge that keeps failing alone (the round itself
	 * going through) would otherwise let the rows of crashed nodes pile up unseen.
	 */
	private boolean purgeFailing;

	Heartbeat(String nodeId, String instanceId, LeaseRepository repository, ElectionSettings settings,
			MonotonicClock clock, DatabaseStatus database, LeadershipListener listener, Executor notifier,
			Random random) {
		this.nodeId = nodeId;
		this.instanceId = instanceId;
		this.repository = repository;
		this.settings = settings;
		this.clock = clock;
		this.database = database;
		this.listener = listener;
		this.notifier = notifier;
		this.random = random;
		// Changes of holder beyond this wait for the next round, so that the next batched
		// renewal of the leases already held comes well before their beliefs end (at
		// L - G, and 2R <= L - G).
		long renew = settings.renewInterval().toNanos();
		long belief = settings.leaseDuration().minus(settings.guard()).toNanos();
		this.budgetNanos = Math.max(renew / 2, (belief - renew) / 2);
		this.purgeIntervalNanos = purgeAge().toNanos();
		this.releases = new Releases(nodeId, instanceId, repository, settings, clock);
	}

	/**
	 * Set the rank of this running instance; before the first round, as the row carries
	 * the rank it was created or taken over with.
	 * @param rank the rank
	 */
	void setRank(String rank) {
		this.rank = rank;
	}

	/**
	 * @return the rank of this running instance
	 */
	String rank() {
		return this.rank;
	}

	/**
	 * @return whether this node reaches the database, shared by its elections
	 */
	DatabaseStatus database() {
		return this.database;
	}

	/**
	 * The lease of an election as this node's heartbeat last read it, without asking the
	 * database (nor the repository, which may wait for it): from the last read's answer,
	 * or from the election's own sighting of a change it made, whichever is newer (a
	 * change made in the round of the read came after it).
	 * @param loop the election
	 * @return the lease and how long ago it was read, or {@code null} if never
	 */
	@Nullable LeaseSighting lastSeen(ElectionLoop loop) {
		LastRead last = this.lastRead;
		LeaseState lease = (last != null) ? last.leases().lease(loop.election()) : null;
		LeaseSighting own = loop.lastSeen();
		if (lease == null) {
			return own;
		}
		LeaseSighting read = new LeaseSighting(lease, Duration.ofNanos(this.clock.nanoTime() - last.atNanos()));
		return (own != null && own.age().compareTo(read.age()) <= 0) ? own : read;
	}

	/**
	 * @return how long rows must have been unused before they are purged
	 */
	Duration purgeAge() {
		return this.settings.leaseDuration().multipliedBy(PURGE_AFTER_LEASES);
	}

	/**
	 * Run one round for the given elections.
	 * @param loops the elections of this node
	 */
	void run(List<ElectionLoop> loops) {
		long started = System.nanoTime();
		this.database.roundStarted(started);
		boolean succeeded;
		try {
			// The budget on the injected clock, so that a simulation in simulated time
			// replays exactly.
			succeeded = round(loops, this.clock.nanoTime());
			// A round that failed makes the next one refresh the row first: while the
			// database
			// stalls writes, the refresh's timeout is what lets followers keep watching.
			this.rowHeld &= succeeded;
		}
		finally {
			this.database.roundEnded();
		}
		Duration duration = Duration.ofNanos(System.nanoTime() - started);
		int elections = loops.size();
		this.notifier.execute(() -> this.listener.heartbeat(this.nodeId, elections, succeeded, duration));
	}

	private boolean round(List<ElectionLoop> loops, long started) {
		if (loops.isEmpty() && this.releases.nonePending()) {
			// Nothing to renew or follow (a node that only takes cluster locks): no
			// statement. Joining an election later refreshes the node's row in the first
			// round again.
			return true;
		}
		long budgetEnd = started + this.budgetNanos;
		// The terms held as the round starts, kept by each election: the refresh of the
		// session renews them.
		boolean holding = false;
		for (ElectionLoop loop : loops) {
			holding |= loop.startRound();
		}
		this.refreshSent = false;
		this.refreshed = false;
		try {
			// The refresh first: nothing that may wait for application work comes before
			// it (I9).
			candidacies(loops, holding);
			this.releases.afterRefresh(loops);
		}
		catch (RuntimeException ex) {
			renewalsUnconfirmed(loops);
			this.database.failed(ex);
			if (timedOut(ex)) {
				watch(loops);
			}
			return false;
		}
		this.releases.beforeRead();
		long sent = this.rowRefreshedNanos;
		LeaseReads leases;
		try {
			leases = this.repository.readAll(this.nodeId, this.instanceId);
		}
		catch (RuntimeException ex) {
			renewalsUnconfirmed(loops);
			this.database.failed(ex);
			return false;
		}
		long readAt = this.clock.nanoTime();
		this.database.answered();
		this.lastRead = new LastRead(leases, readAt);
		this.releases.afterRead(loops, leases);
		boolean succeeded = decide(loops, sent, leases, readAt, budgetEnd);
		purgeWhenDue();
		return succeeded;
	}

	/**
	 * A refresh sent this round may have moved the session on without a read to show it:
	 * each held election counts it as a renewal whose outcome is unknown.
	 */
	private void renewalsUnconfirmed(List<ElectionLoop> loops) {
		if (!this.refreshSent) {
			return;
		}
		for (ElectionLoop loop : loops) {
			synchronized (loop) {
				if (loop.roundTerm() >= 0) {
					loop.renewalOutcomeUnknown(this.refreshSentNanos);
				}
			}
		}
	}

	/**
	 * After the refresh of this node's row timed out, read the leases anyway so that the
	 * followers keep watching them (I3): a MariaDB Galera cluster that evicts a dead node
	 * stalls every write for {@code evs.suspect_timeout} while its nodes still answer
	 * reads of their own data. Without the read, a renewal that a follower missed just
	 * before the stall would start its whole-lease observation only after it. Nothing is
	 * decided and the database does not count as answering: this round failed.
	 */
	private void watch(List<ElectionLoop> loops) {
		LeaseReads leases;
		try {
			leases = this.repository.readAll(this.nodeId, this.instanceId);
		}
		catch (RuntimeException ex) {
			logger.debug("Node '{}': could not read the leases either", this.nodeId, ex);
			return;
		}
		long readAt = this.clock.nanoTime();
		this.lastRead = new LastRead(leases, readAt);
		for (ElectionLoop loop : loops) {
			LeaseState state = leases.lease(loop.election());
			if (state != null) {
				synchronized (loop) {
					loop.watch(state, readAt);
				}
			}
		}
	}

	/**
	 * Whether a statement failed because the database did not answer in time, rather than
	 * because it could not be reached.
	 */
	static boolean timedOut(Throwable ex) {
		// A driver's query timeout, its socket timeout (I7), or the server's own
		// cancellation
		// (PostgreSQL's statement_timeout: SQLState 57014), under whatever wrapper.
		return DatabaseFailureKind.of(ex) == DatabaseFailureKind.TIMED_OUT;
	}

	private boolean decide(List<ElectionLoop> loops, long sent, LeaseReads leases, long readAt, long budgetEnd) {
		boolean succeeded = true;
		Map<Batch, List<PendingChange>> leaders = new LinkedHashMap<>();
		List<PendingChange> creates = new ArrayList<>();
		List<PendingChange> takeOvers = new ArrayList<>();
		// By holder: the leases this node outranks its holder in, and asks for.
		Map<String, List<String>> asks = new TreeMap<>();
		boolean serverChanged = false;
		// The server that answered, as the leases shown name it, and the elections it
		// showed nothing of: a failover holds those back from this read as well.
		@Nullable String server = null;
		List<ElectionLoop> notShown = new ArrayList<>();
		for (ElectionLoop loop : loops) {
			if (!loop.candidate() || this.releases.yieldPending(loop.election())) {
				// Takes no part this round (its candidacy, just now), or gave its lease
				// up and waits for the release to go through: it must not take it back.
				notShown.add(loop);
				continue;
			}
			// Each lease as the read answered it, composed now by a repository that keeps
			// a view of them: no round holds all of them at once.
			LeaseState state = leases.lease(loop.election());
			if (state == null) {
				notShown.add(loop);
			}
			else if (server == null) {
				server = state.server();
			}
			synchronized (loop) {
				// Nothing renewed where this round's refresh did not find the row this
				// instance's.
				long renewedTerm = this.refreshed ? loop.roundTerm() : -1;
				LeaseChange change = loop.decide(renewedTerm, sent, state, readAt);
				serverChanged |= loop.takeServerChange();
				if (change == null) {
					if (state != null && loop.mayAskToLead(state) && outranks(state.holderRank())) {
						asks.computeIfAbsent(Objects.requireNonNull(state.leaderId()), (key) -> new ArrayList<>())
							.add(loop.election());
					}
					continue;
				}
				PendingChange pending = new PendingChange(loop, change, loop.relinquishments());
				switch (change.kind()) {
					case CREATE -> creates.add(pending);
					case TAKE_OVER -> takeOvers.add(pending);
					default ->
						leaders.computeIfAbsent(new Batch(change.kind(), change.target()), (key) -> new ArrayList<>())
							.add(pending);
				}
			}
		}
		if (server != null) {
			for (ElectionLoop loop : notShown) {
				synchronized (loop) {
					loop.serverAnswered(server, readAt);
					serverChanged |= loop.takeServerChange();
				}
			}
		}
		if (serverChanged) {
			this.releases.failoverSeen();
			// Followers too: every take-over and re-acquisition on this node now waits a
			// lease,
			// and several failovers in a row leave elections without a leader for longer.
			logger.warn("Node '{}': another database server answers than before (a failover); no lease is taken "
					+ "over or acquired again for a lease from now, in case the new server lost a newer one (I3)",
					this.nodeId);
		}
		// The changes of leases this node holds never wait for the budget: their beliefs
		// ended already, and the requests behind them wait for them.
		for (Map.Entry<Batch, List<PendingChange>> batch : leaders.entrySet()) {
			List<PendingChange> changes = batch.getValue();
			for (int from = 0; from < changes.size(); from += CHANGES_PER_BATCH) {
				succeeded &= carryOut(batch.getKey(),
						changes.subList(from, Math.min(changes.size(), from + CHANGES_PER_BATCH)), server);
			}
		}
		succeeded &= askToLead(asks, budgetEnd);
		// A follower's changes, within the budget: the rest decide again on the next
		// round's read. New elections first, from a random place in name order, so that
		// nodes that start together mostly create different leases instead of all failing
		// on the same.
		creates.sort(Comparator.comparing((PendingChange pending) -> pending.loop().election()));
		if (!creates.isEmpty()) {
			Collections.rotate(creates, this.random.nextInt(creates.size()));
		}
		succeeded &= carryOutWithinBudget(new Batch(LeaseChange.Kind.CREATE, null), creates, budgetEnd);
		// Take-overs in random order, so that the nodes of a cluster spread the
		// take-overs of a crashed node's many leases between them instead of all trying
		// the same ones first.
		Collections.shuffle(takeOvers, this.random);
		succeeded &= carryOutWithinBudget(new Batch(LeaseChange.Kind.TAKE_OVER, null), takeOvers, budgetEnd);
		return succeeded;
	}

	/**
	 * Whether this instance outranks a holder of that rank; the empty rank outranks none.
	 */
	private boolean outranks(@Nullable String holderRank) {
		String own = this.rank;
		if (own.isEmpty() || holderRank == null) {
			return false;
		}
		if (!holderRank.equals(this.comparedRank) || !own.equals(this.comparedOwnRank)) {
			this.comparedOutranks = RankOrder.INSTANCE.outranks(own, holderRank);
			this.comparedRank = holderRank;
			this.comparedOwnRank = own;
		}
		return this.comparedOutranks;
	}

	/**
	 * Ask the holders of lower rank for their leases, within the budget: each carries its
	 * hand-over out at its next renewal (a rolling deploy so moves leadership once, to
	 * the first instance of the new version that is ready). A request that was not
	 * recorded (the holder changed, or a request is pending) is decided again on the next
	 * read.
	 * @return whether the database answered
	 */
	private boolean askToLead(Map<String, List<String>> asks, long budgetEnd) {
		for (Map.Entry<String, List<String>> ask : asks.entrySet()) {
			if (this.clock.nanoTime() - budgetEnd > 0) {
				break;
			}
			try {
				int asked = this.repository.askToLead(this.nodeId, ask.getKey(), ask.getValue());
				if (asked > 0) {
					logger.info("Node '{}' (rank '{}') asked '{}', of a lower rank, to hand over {} of its leases",
							this.nodeId, this.rank, ask.getKey(), asked);
				}
			}
			catch (RuntimeException ex) {
				this.database.failed(ex);
				return false;
			}
		}
		return true;
	}

	/**
	 * Carry out changes a batch at a time until the budget of the round is spent.
	 * @return whether the database answered
	 */
	private boolean carryOutWithinBudget(Batch batch, List<PendingChange> changes, long budgetEnd) {
		boolean succeeded = true;
		for (int from = 0; from < changes.size(); from += CHANGES_PER_BATCH) {
			if (this.clock.nanoTime() - budgetEnd > 0) {
				break;
			}
			succeeded &= carryOut(batch, changes.subList(from, Math.min(changes.size(), from + CHANGES_PER_BATCH)),
					null);
		}
		return succeeded;
	}

	/**
	 * Carry out one batch of changes of holder of one kind
	 * ({@link LeaseRepository#takeOverAll} and the like), then let each election adopt
	 * what the database answered for it. The elections' monitors are not held across the
	 * batch: a release meanwhile is seen by its count, and a lease taken after it is
	 * given up again at once.
	 * @param decidedOn the server whose read decided a hand-over, or {@code null}
	 * @return whether the database answered
	 */
	private boolean carryOut(Batch batch, List<PendingChange> changes, @Nullable String decidedOn) {
		Map<String, Long> rows = new LinkedHashMap<>();
		Map<String, LeaseObservation> observed = new LinkedHashMap<>();
		for (PendingChange pending : changes) {
			LeaseChange change = pending.change();
			if (change.kind() == LeaseChange.Kind.TAKE_OVER) {
				observed.put(pending.loop().election(), Objects.requireNonNull(change.observed()));
			}
			rows.put(pending.loop().election(), change.term());
		}
		Duration lease = this.settings.leaseDuration();
		long sent = this.clock.nanoTime();
		Map<String, LeaseState> changed = new HashMap<>();
		try {
			List<LeaseState> states = switch (batch.kind()) {
				case TAKE_OVER -> this.repository.takeOverAll(this.nodeId, observed, lease);
				case REACQUIRE -> this.repository.reacquireAll(this.nodeId, rows, lease);
				// Only on the server that answered the read: its target believes once it
				// re-acquires.
				case HAND_OVER -> this.repository.handOverAll(this.nodeId, rows, Objects.requireNonNull(batch.target()),
						lease, decidedOn);
				case YIELD -> this.repository.yieldAll(this.nodeId, rows);
				case CREATE -> this.repository.createAll(this.nodeId, List.copyOf(rows.keySet()), lease);
			};
			states.forEach((state) -> changed.put(state.election(), state));
		}
		catch (RuntimeException ex) {
			// Outcome unknown (I3): none is believed; a lease the batch did take names
			// this node at the next read, and is re-acquired under a new term before it
			// is. A hand-over or yield that may not have been applied is held again,
			// without belief, so that the next read carries the request out (I6) instead
			// of re-acquiring the lease, which would clear it.
			for (PendingChange pending : changes) {
				synchronized (pending.loop()) {
					if (pending.change().acquires()) {
						pending.loop().notAcquired();
					}
					else if (pending.loop().relinquishments() == pending.relinquishments()) {
						pending.loop().changeNotApplied(pending.change().term());
					}
				}
			}
			this.database.failed(ex);
			return false;
		}
		for (PendingChange pending : changes) {
			synchronized (pending.loop()) {
				adopt(pending, changed.get(pending.loop().election()), sent);
			}
		}
		this.database.answered();
		return true;
	}

	/** Let an election adopt the answer to its change; the caller holds its monitor. */
	private void adopt(PendingChange pending, @Nullable LeaseState state, long sent) {
		ElectionLoop loop = pending.loop();
		boolean relinquished = loop.relinquishments() != pending.relinquishments();
		LeaseChange change = pending.change();
		if (!change.acquires()) {
			if (state != null && change.kind() == LeaseChange.Kind.HAND_OVER) {
				logger.info("Election '{}': handed leadership over to '{}'", loop.election(), change.target());
			}
			else if (state != null && change.kind() == LeaseChange.Kind.YIELD) {
				// As the releases at stop() and of released elections say it (I10).
				logger.info("Election '{}': released leadership of term {}", loop.election(), change.term());
			}
			else if (state == null && !relinquished) {
				// Left as it was (its fence row busy with fenced work, or the row moved
				// on): the next round's read says whether to try again.
				loop.changeNotApplied(change.term());
			}
			return;
		}
		if (state == null && change.kind() == LeaseChange.Kind.CREATE) {
			loop.creationRefused(this.repository.refusesRowsOf(loop.election()));
		}
		else if (state == null) {
			loop.notAcquired();
		}
		else if (relinquished) {
			loop.notAcquired();
			this.releases.yieldHeld(loop, state.term());
		}
		else {
			loop.acquired(sent, state);
		}
	}

	/** The leases as a read answered them, and when it returned (monotonic clock). */
	private record LastRead(LeaseReads leases, long atNanos) {
	}

	/** The changes of one kind (and target) that go in one batch. */
	private record Batch(LeaseChange.Kind kind, @Nullable String target) {
	}

	/**
	 * A change an election asked for, with how often it had been given up when it asked.
	 */
	private record PendingChange(ElectionLoop loop, LeaseChange change, int relinquishments) {
	}

	/**
	 * Refresh this node's one row, and join the elections that are new since the last
	 * round in one statement. When the node's row was created or taken over, every
	 * election is joined again (its candidates rows may have been purged meanwhile), and
	 * the candidacies that came with the row in elections this instance does not run are
	 * left (an earlier process with this node id ran them). Each election learns whether
	 * it takes part this round ({@link ElectionLoop#candidacy}, then
	 * {@link ElectionLoop#candidate}).
	 */
	private void candidacies(List<ElectionLoop> loops, boolean holding) {
		Candidacy candidacy = refreshRow(holding);
		if (candidacy != Candidacy.IN_USE) {
			List<String> joining = new ArrayList<>();
			for (ElectionLoop loop : loops) {
				if (!loop.stopped() && (candidacy != Candidacy.HELD || !loop.candidate())) {
					joining.add(loop.election());
				}
			}
			if (candidacy != Candidacy.HELD) {
				this.othersToLeave = true;
			}
			if (this.othersToLeave) {
				List<String> running = new ArrayList<>(loops.size());
				for (ElectionLoop loop : loops) {
					if (!loop.stopped()) {
						running.add(loop.election());
					}
				}
				this.repository.leaveOtherElections(this.nodeId, this.instanceId, running);
				this.othersToLeave = false;
			}
			if (!joining.isEmpty()) {
				this.repository.join(this.nodeId, this.instanceId, joining);
			}
		}
		// For a lease after taking the id over, elections joined since must also treat a
		// lease naming the id as possibly the earlier instance's.
		boolean recentlyTakenOver = this.nodeIdTakenOver
				&& this.clock.nanoTime() - this.nodeIdTakenOverNanos < this.settings.leaseDuration().toNanos();
		for (ElectionLoop loop : loops) {
			if (!loop.stopped()) {
				synchronized (loop) {
					loop.candidacy(candidacy);
					if (recentlyTakenOver) {
						loop.nodeIdTakenOverAt(this.nodeIdTakenOverNanos);
					}
				}
			}
		}
		logNodeIdInUse(candidacy == Candidacy.IN_USE);
	}

	/**
	 * Refresh this node's row: always while it holds a lease (the refresh renews them
	 * all), and otherwise unless the last round succeeded and the row will still be
	 * younger than half a lease at the next round: another instance with this node id may
	 * take the row over only once it is a whole lease old, so a row this instance
	 * refreshed that recently is still its own, and the others count the node alive until
	 * then. The time is when the refresh was sent, so the row is at most that old.
	 * @param holding whether this node holds a lease
	 * @return what the row says, {@link Candidacy#HELD} where it was not refreshed
	 */
	private Candidacy refreshRow(boolean holding) {
		long now = this.clock.nanoTime();
		long renew = this.settings.renewInterval().toNanos();
		if (!holding && this.rowHeld
				&& now - this.rowRefreshedNanos + renew <= this.settings.leaseDuration().toNanos() / 2) {
			return Candidacy.HELD;
		}
		this.rowHeld = false;
		this.refreshSent = true;
		this.refreshSentNanos = now;
		long inherit = (this.watchedNodeVersion >= 0
				&& now - this.watchedNodeSinceNanos >= this.settings.leaseDuration().toNanos())
						? this.watchedNodeVersion : -1;
		Candidacy candidacy = this.repository.heartbeat(this.nodeId, this.instanceId, this.rank,
				this.settings.leaseDuration(), inherit);
		if (candidacy == Candidacy.HELD && !this.rowAnswered) {
			// The row is this instance's, and the answer that said how was lost: it may
			// have
			// taken the id over from another instance, which may only be paused (I3).
			candidacy = Candidacy.INHERITED;
		}
		this.rowAnswered = candidacy != Candidacy.IN_USE;
		if (candidacy == Candidacy.INHERITED) {
			// Noted at once: the statements after the refresh may fail, and the next
			// refresh finds the row held.
			this.nodeIdTakenOverNanos = now;
			this.nodeIdTakenOver = true;
		}
		if (candidacy != Candidacy.IN_USE) {
			this.rowHeld = true;
			this.rowRefreshedNanos = now;
			this.refreshed = candidacy == Candidacy.HELD;
			this.watchedNodeVersion = -1;
		}
		else {
			watchNodeRow();
		}
		return candidacy;
	}

	/**
	 * Watch another instance's row of this node id: its version, from when this instance
	 * first saw it (after the read's answer, so never before the row was written). That
	 * instance may be paused rather than gone: it believes in its leases until a lease
	 * after its last refresh at most, on its own clock, and a row that looks stale early
	 * on the database clock (a forward step) must not hand its id over sooner.
	 */
	private void watchNodeRow() {
		NodeRowSighting row = this.repository.nodeRow(this.nodeId, this.settings.leaseDuration());
		long seenAt = this.clock.nanoTime();
		if (row == null) {
			// Gone (its instance stopped): the next heartbeat creates it anew.
			this.watchedNodeVersion = -1;
			this.watchedNodeStale = true;
			return;
		}
		if (row.version() != this.watchedNodeVersion) {
			this.watchedNodeVersion = row.version();
			this.watchedNodeSinceNanos = seenAt;
		}
		this.watchedNodeStale = row.stale();
	}

	private void logNodeIdInUse(boolean inUse) {
		if (inUse && !this.watchedNodeStale && !this.nodeIdInUse) {
			this.nodeIdInUse = true;
			logger.error("Node id '{}' is in use by another running instance; this instance takes no part until that "
					+ "one stops. Give every instance its own leader-election.node-id", this.nodeId);
		}
		else if (inUse && this.watchedNodeStale && !this.nodeIdInUse && !this.nodeIdWaiting) {
			// A restart after a crash: the earlier instance may only be paused.
			this.nodeIdWaiting = true;
			logger.info("Node id '{}': an earlier instance's heartbeats have stopped; this instance takes the id over "
					+ "once it has seen that instance's row unchanged for a lease", this.nodeId);
		}
		else if (!inUse && (this.nodeIdInUse || this.nodeIdWaiting)) {
			this.nodeIdInUse = false;
			this.nodeIdWaiting = false;
			logger.info("Node id '{}' is no longer in use by another instance; taking part", this.nodeId);
		}
	}

	private void purgeWhenDue() {
		long now = this.clock.nanoTime();
		if (this.purged && now - this.lastPurgeNanos < this.purgeIntervalNanos) {
			return;
		}
		this.purged = true;
		this.lastPurgeNanos = now;
		try {
			this.repository.purge(purgeAge());
			if (this.purgeFailing) {
				this.purgeFailing = false;
				logger.info("Node '{}': the purge of unused rows went through again", this.nodeId);
			}
		}
		catch (RuntimeException ex) {
			if (!this.purgeFailing) {
				this.purgeFailing = true;
				logger.warn(
						"Node '{}': could not purge unused rows; trying again every {} (further failures at DEBUG): {}",
						this.nodeId, purgeAge(), ex.toString());
			}
			else {
				logger.debug("Node '{}': could not purge unused rows again; trying again in {}", this.nodeId,
						purgeAge(), ex);
			}
		}
	}

	/**
	 * Give up an election's lease ({@link Releases#release}).
	 * @param loop the election
	 * @param reason reason announced to listeners
	 * @param keepCompeting whether this node stays a candidate; if not, it also leaves
	 * the candidates
	 */
	void release(ElectionLoop loop, RevocationReason reason, boolean keepCompeting) {
		this.releases.release(loop, reason, keepCompeting);
	}

	/**
	 * Release every election and leave all candidates, on shutdown: every belief ends
	 * first, then the leases are made vacant in batches
	 * ({@link LeaseRepository#yieldAll}), so that a node with thousands of elections does
	 * not hold its shutdown up with a statement per lease; a lease whose fenced work is
	 * still running is released on its own once that work commits. Once the database
	 * fails to answer, the rest expire.
	 * @param loops the elections of this node
	 */
	void releaseAll(Collection<ElectionLoop> loops) {
		Map<String, Long> held = new LinkedHashMap<>();
		for (ElectionLoop loop : loops) {
			synchronized (loop) {
				long term = loop.relinquish(RevocationReason.SHUTDOWN, false);
				if (term >= 0) {
					held.put(loop.election(), term);
				}
			}
		}
		if (!this.releases.yieldAll(held, CHANGES_PER_BATCH)) {
			return;
		}
		try {
			this.rowHeld = false;
			this.repository.removeCandidacies(this.nodeId, this.instanceId);
		}
		catch (RuntimeException ex) {
			logger.warn("Node '{}': could not leave the candidates; the entries age out within a lease: {}",
					this.nodeId, ex.toString());
		}
	}

}
