package io.github.dbleader.election.partition;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.dbleader.election.Candidate;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionNames;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.FencedCallback;
import io.github.dbleader.election.LeaseSighting;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.MonotonicClock;
import io.github.dbleader.election.NoLeaseException;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.UnknownCandidateException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named group of partitions on one node. Each partition is an ordinary election of the
 * node's {@link ElectionService}, named {@code partition:<group>:<partition>}, so the
 * node's batched heartbeat renews and reads all of them with its usual statements, and
 * each partition has its own lease and term (its fencing token).
 *
 * <p>
 * {@link #isOwner(int)} and {@link #ownedPartitions()} never touch the database. Once
 * {@link #start() started}, a balancing step runs every renew interval: it reads the
 * group's live members and its pins (two statements, whatever the number of partitions),
 * computes the targets with {@link PartitionAssignment} from the leases the heartbeat
 * last read, and hands the partitions this node owns but should not over to their targets
 * with the election's safe hand-over ({@link Election#forceLeader(String)}): the owner
 * stops, then the target starts with a higher term. A free partition (its owner left or
 * crashed) is taken only by its target, so that it does not land on a node that would
 * have to hand it on again; if balancing has not run for a lease, any node takes it.
 *
 * <p>
 * Obtain groups from {@link PartitionGroups#create}, which routes the election's
 * leadership callbacks to the group's {@link PartitionListener listeners}.
 */
public final class PartitionGroup implements AutoCloseable {

	/** Longest group name. */
	public static final int MAX_NAME_LENGTH = ElectionNames.MAX_GROUP_NAME_LENGTH;

	/** Most partitions of a group. */
	public static final int MAX_PARTITIONS = 100_000;

	private static final Logger logger = LoggerFactory.getLogger(PartitionGroup.class);

	private final ElectionService service;

	private final String name;

	private final int count;

	private final PartitionSettings settings;

	private final PartitionPins pins;

	private final PartitionAssignment assignment;

	private final MonotonicClock clock;

	private final long planValidNanos;

	private final List<PartitionListener> listeners = new CopyOnWriteArrayList<>();

	/**
	 * The registry's listeners, told of every group's partitions after the group's own.
	 */
	private final List<PartitionListener> registryListeners;

	private final List<Election> elections;

	private final Object lifecycleMonitor = new Object();

	/** The targets of the last balancing step; {@code null} before the first. */
	private volatile @Nullable Plan plan;

	/**
	 * What stops balancing while it runs; read by the take-over policy on the heartbeat
	 * thread.
	 */
	private volatile @Nullable Runnable balancer;

	private final Steps steps;

	private volatile boolean closed;

	/** Whether the last balancing step could not read; for one log line per change. */
	private boolean readFailing;

	/** The hand-overs the balancing steps ask for. */
	private final PartitionHandOvers handOvers;

	private Set<String> loggedMembers = Set.of();

	PartitionGroup(ElectionService service, String name, int count, PartitionSettings settings, PartitionPins pins,
			MonotonicClock clock, Steps steps, List<PartitionListener> registryListeners) {
		this.steps = Objects.requireNonNull(steps, "steps must not be null");
		this.registryListeners = registryListeners;
		this.service = Objects.requireNonNull(service, "service must not be null");
		this.name = ElectionNames.group(name);
		if (count < 1 || count > MAX_PARTITIONS) {
			throw new IllegalArgumentException(
					"partition group '" + name + "' must have 1 to " + MAX_PARTITIONS + " partitions but has " + count);
		}
		this.count = count;
		this.settings = Objects.requireNonNull(settings, "settings must not be null");
		this.pins = Objects.requireNonNull(pins, "pins must not be null");
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
		this.assignment = new PartitionAssignment(settings.settleTime());
		this.planValidNanos = service.settings().leaseDuration().toNanos();
		List<Election> joined = new ArrayList<>(count);
		for (int partition = 0; partition < count; partition++) {
			int number = partition;
			joined.add(service.partitionElection(electionName(name, partition), (state) -> mayTakeOver(number),
					new PartitionLeadership(number)));
		}
		this.elections = List.copyOf(joined);
		this.handOvers = new PartitionHandOvers(service, this.name, this.elections, settings.maxHandOversPerRound());
	}

	/**
	 * The name of the election of one partition.
	 * @param group group name
	 * @param partition the partition
	 * @return {@code partition:<group>:<partition>}
	 */
	public static String electionName(String group, int partition) {
		return ElectionNames.partitionElection(group, partition);
	}

	/**
	 * The group of a partition election, so that views of all elections (the leader
	 * endpoint, health) can show a group as one entry instead of one per partition.
	 * @param election an election name
	 * @return the group name if {@code election} is named as the election of a partition
	 * ({@code partition:<group>:<n>}), else {@code null}
	 */
	public static @Nullable String groupOf(String election) {
		return ElectionNames.groupOf(election);
	}

	/**
	 * @return the group's name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * @return how many partitions the group has
	 */
	public int count() {
		return this.count;
	}

	/**
	 * @return this node's id
	 */
	public String nodeId() {
		return this.service.nodeId();
	}

	/**
	 * @return how this group balances
	 */
	public PartitionSettings settings() {
		return this.settings;
	}

	/**
	 * Whether this node owns a partition at this instant. Never touches the database.
	 * @param partition the partition, {@code 0} to {@code count() - 1}
	 * @return {@code true} if this node owns it
	 */
	public boolean isOwner(int partition) {
		return election(partition).isLeader();
	}

	/**
	 * The partitions this node owns at this instant. Never touches the database.
	 * @return the partitions, in ascending order
	 */
	public SortedSet<Integer> ownedPartitions() {
		SortedSet<Integer> owned = new TreeSet<>();
		for (int partition = 0; partition < this.count; partition++) {
			if (this.elections.get(partition).isLeader()) {
				owned.add(partition);
			}
		}
		return Collections.unmodifiableSortedSet(owned);
	}

	/**
	 * The term (fencing token) this node owns a partition with.
	 * @param partition the partition
	 * @return the term, or -1 if this node does not own it
	 */
	public long term(int partition) {
		return election(partition).term();
	}

	/**
	 * The election of one partition.
	 * @param partition the partition
	 * @return its election
	 */
	public Election election(int partition) {
		if (partition < 0 || partition >= this.count) {
			throw new IndexOutOfBoundsException(
					"partition " + partition + " of group '" + this.name + "', which has " + this.count);
		}
		return this.elections.get(partition);
	}

	/**
	 * Run work that only the owner of a partition may commit, fenced by the partition's
	 * term (see {@link Election#runFenced}).
	 * @param <T> the result type
	 * @param partition the partition
	 * @param callback the work, given the partition's term
	 * @return the work's result
	 * @throws NotLeaderException if this node does not own the partition; nothing was
	 * committed
	 */
	public <T extends @Nullable Object> T runFenced(int partition, FencedCallback<T> callback) {
		return election(partition).runFenced(callback);
	}

	/**
	 * Add a listener for the partitions this node gains and loses.
	 * @param listener the listener
	 */
	public void addListener(PartitionListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
	}

	/**
	 * Remove a listener.
	 * @param listener the listener
	 */
	public void removeListener(PartitionListener listener) {
		this.listeners.remove(listener);
	}

	/**
	 * Pin a partition to a node: it is handed over to that node now, and balancing leaves
	 * it there while the node is a live member, until {@link #unpin(int)}. The pin is
	 * kept in the database, so every node respects it.
	 * @param partition the partition
	 * @param nodeId the node that should own it
	 * @throws UnknownCandidateException if the node is not a live member of the group
	 */
	public void pin(int partition, String nodeId) {
		Election election = election(partition);
		if (election.candidates().stream().noneMatch((member) -> member.nodeId().equals(nodeId))) {
			throw new UnknownCandidateException(election.name(), nodeId);
		}
		this.pins.pin(this.name, partition, nodeId);
		logger.info("Partition group '{}': partition {} pinned to '{}'", this.name, partition, nodeId);
		try {
			election.forceLeader(nodeId);
		}
		catch (NoLeaseException ex) {
			// No lease yet: the pinned node takes it when balancing runs.
		}
	}

	/**
	 * Remove the pin of a partition; balancing decides its owner again.
	 * @param partition the partition
	 * @return whether it was pinned
	 */
	public boolean unpin(int partition) {
		election(partition);
		boolean unpinned = this.pins.unpin(this.name, partition);
		if (unpinned) {
			logger.info("Partition group '{}': partition {} unpinned", this.name, partition);
		}
		return unpinned;
	}

	/**
	 * The group as this node last saw it, without touching the database.
	 * @return owners, terms, targets, pins and pending hand-overs of every partition
	 */
	public PartitionGroupStatus status() {
		Plan current = this.plan;
		List<PartitionStatus> partitions = new ArrayList<>(this.count);
		for (int partition = 0; partition < this.count; partition++) {
			LeaseState lease = this.elections.get(partition).lastSeenLease().map(LeaseSighting::lease).orElse(null);
			String target = (current != null) ? current.targets().get(partition) : null;
			String pinnedTo = (current != null) ? current.pins().get(partition) : null;
			partitions.add(new PartitionStatus(partition, (lease != null) ? lease.leaderId() : null,
					(lease != null) ? lease.term() : 0, target, pinnedTo, (lease != null) ? lease.handoverTo() : null));
		}
		return new PartitionGroupStatus(this.name, nodeId(), (current != null) ? current.members() : List.of(),
				partitions,
				(current != null) ? Duration.ofNanos(this.clock.nanoTime() - current.computedAtNanos()) : null);
	}

	/** Start balancing: a step at once, then one every renew interval. */
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.balancer != null || this.closed) {
				return;
			}
			this.balancer = this.steps.start(this.name, this::balanceQuietly, this.service.settings().renewInterval());
		}
	}

	/**
	 * Stop balancing. The partitions stay this node's until the election service stops
	 * (which releases them) or {@link #close()}.
	 */
	public void stop() {
		Runnable stopping;
		synchronized (this.lifecycleMonitor) {
			stopping = this.balancer;
			this.balancer = null;
		}
		if (stopping != null) {
			stopping.run();
		}
	}

	/**
	 * @return whether balancing runs
	 */
	public boolean isRunning() {
		synchronized (this.lifecycleMonitor) {
			return this.balancer != null;
		}
	}

	/**
	 * Leave the group: stop balancing, give up every partition this node owns (their
	 * targets take them over within a renew interval or two) and leave their elections.
	 */
	@Override
	public void close() {
		this.closed = true;
		stop();
		for (Election election : this.elections) {
			this.service.leave(election.name());
		}
		logger.info("Partition group '{}': node '{}' left", this.name, nodeId());
	}

	private void balanceQuietly() {
		try {
			balance();
		}
		catch (RuntimeException ex) {
			// A failed step must not end the schedule.
			logger.error("Partition group '{}': balancing failed unexpectedly", this.name, ex);
		}
	}

	/**
	 * One balancing step: read the members and pins, compute the targets, start the
	 * hand-overs this node owes.
	 */
	void balance() {
		if (this.closed) {
			return;
		}
		List<Candidate> members;
		Map<Integer, String> pinned;
		try {
			members = this.elections.get(0).candidates();
			pinned = this.pins.pins(this.name);
		}
		catch (RuntimeException ex) {
			if (!this.readFailing) {
				this.readFailing = true;
				logger.warn("Partition group '{}': could not read the members; not balancing until it can: {}",
						this.name, ex.toString());
			}
			return;
		}
		if (this.readFailing) {
			this.readFailing = false;
			logger.info("Partition group '{}': members read again; balancing", this.name);
		}
		Instant now = Instant.EPOCH;
		for (Candidate member : members) {
			now = latest(now, member.lastSeen());
		}
		Map<Integer, String> owners = new HashMap<>();
		List<@Nullable LeaseState> leases = new ArrayList<>(this.count);
		for (int partition = 0; partition < this.count; partition++) {
			LeaseSighting sighting = this.elections.get(partition).lastSeenLease().orElse(null);
			LeaseState lease = (sighting != null) ? sighting.lease() : null;
			leases.add(lease);
			if (lease != null) {
				// The database's time now is at least the time of the read plus its age.
				now = latest(now, lease.databaseTime().plus(sighting.age()));
				if (lease.leaderId() != null) {
					owners.put(partition, lease.leaderId());
				}
			}
		}
		List<@Nullable String> targets = this.assignment.targets(this.count, members, now, owners, pinned);
		List<String> memberIds = members.stream().map(Candidate::nodeId).sorted().toList();
		this.plan = new Plan(targets, memberIds, Map.copyOf(pinned), this.clock.nanoTime());
		logMembers(memberIds);
		this.handOvers.request(targets, leases);
	}

	/**
	 * Whether this node may take a free partition now: only if balancing made it the
	 * partition's target, so that the partition does not land on a node that would have
	 * to hand it on. Without a recent balancing step (not started, or the members cannot
	 * be read), any node may, so that a free partition never stays free.
	 */
	private boolean mayTakeOver(int partition) {
		Plan current = this.plan;
		if (current == null || this.balancer == null
				|| this.clock.nanoTime() - current.computedAtNanos() > this.planValidNanos) {
			return true;
		}
		String target = current.targets().get(partition);
		return target == null || target.equals(nodeId());
	}

	private void gained(int partition, long term) {
		for (PartitionListener listener : this.listeners) {
			notify(() -> listener.partitionGained(this.name, partition, term));
		}
		for (PartitionListener listener : this.registryListeners) {
			notify(() -> listener.partitionGained(this.name, partition, term));
		}
	}

	private void lost(int partition, long term, RevocationReason reason) {
		for (PartitionListener listener : this.listeners) {
			notify(() -> listener.partitionLost(this.name, partition, term, reason));
		}
		for (PartitionListener listener : this.registryListeners) {
			notify(() -> listener.partitionLost(this.name, partition, term, reason));
		}
	}

	private void notify(Runnable callback) {
		try {
			callback.run();
		}
		catch (RuntimeException ex) {
			logger.warn("Partition group '{}': listener failed", this.name, ex);
		}
	}

	private void logMembers(List<String> members) {
		Set<String> current = Set.copyOf(members);
		if (!current.equals(this.loggedMembers)) {
			this.loggedMembers = current;
			logger.info("Partition group '{}': members {}", this.name, members);
		}
	}

	private static Instant latest(Instant a, Instant b) {
		return a.isAfter(b) ? a : b;
	}

	/**
	 * How balancing steps run: on a thread of the group's own ({@link #THREAD}), or where
	 * the caller runs them (the simulation of the election package, in simulated time).
	 */
	interface Steps {

		/** A thread of the group's own. */
		Steps THREAD = (group, step, interval) -> {
			ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
				Thread thread = new Thread(runnable, "leader-election-partitions-" + group);
				thread.setDaemon(true);
				return thread;
			});
			long period = interval.toNanos();
			executor.scheduleWithFixedDelay(step, 0, period, TimeUnit.NANOSECONDS);
			return () -> {
				executor.shutdownNow();
				try {
					executor.awaitTermination(1, TimeUnit.MINUTES);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			};
		};

		/**
		 * Run a step at once, then one an interval after the previous one ended.
		 * @param group the group's name
		 * @param step the step
		 * @param interval the renew interval
		 * @return what stops the steps, once the step under way ended
		 */
		Runnable start(String group, Runnable step, Duration interval);

	}

	/**
	 * The outcome of a balancing step.
	 *
	 * @param targets target owner by partition
	 * @param members the live members, ordered by node id
	 * @param pins the pins read
	 * @param computedAtNanos when (monotonic clock)
	 */
	private record Plan(List<@Nullable String> targets, List<String> members, Map<Integer, String> pins,
			long computedAtNanos) {
	}

	/**
	 * The listener of one partition's election: the group hears of it with its number.
	 */
	private final class PartitionLeadership implements LeadershipListener {

		private final int partition;

		PartitionLeadership(int partition) {
			this.partition = partition;
		}

		@Override
		public void granted(String election, String nodeId, long term) {
			gained(this.partition, term);
		}

		@Override
		public void revoked(String election, String nodeId, long term, RevocationReason reason) {
			lost(this.partition, term, reason);
		}

	}

}
