package io.github.dbleader.autoconfigure.metrics;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.dbleader.autoconfigure.NodeState;
import io.github.dbleader.election.DatabaseFailureKind;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.aop.LeaderOnlyRun;
import io.github.dbleader.election.aop.LeaderOnlyRunListener;
import io.github.dbleader.election.aop.LeaderOnlyRuns;
import io.github.dbleader.election.aop.SkippedInvocationListener;
import io.github.dbleader.election.partition.PartitionGroup;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The meters of the elections, each tagged with {@code election} unless said otherwise:
 * <ul>
 * <li>{@code leader.election.leader}: gauge, 1 while this node leads, else 0 (read at
 * every scrape from the local deadline, no database access);
 * <li>{@code leader.election.term}: gauge, term of the leader this node last saw;
 * <li>{@code leader.election.transitions}: counter of this node's changes of leadership,
 * tagged {@code type} ({@code granted} or {@code revoked}) and {@code reason}
 * ({@code none} when granted, else the {@link RevocationReason} in lower case);
 * <li>{@code leader.election.heartbeat}: timer of this node's heartbeat rounds (one round
 * covers all of its elections, so no {@code election} tag), tagged {@code outcome}
 * ({@code success} or {@code failure});
 * <li>{@code leader.election.heartbeat.slow}: counter of the rounds that succeeded but
 * took longer than half the statement timeout (the database answers slowly; a little
 * slower would fail rounds);
 * <li>{@code leader.election.heartbeat.failures}: counter of the rounds that failed,
 * tagged {@code kind}, the {@link DatabaseFailureKind} of the round's first failed
 * statement in lower case (every kind from the start, at 0 until it happens);
 * <li>{@code leader.election.node.state}: gauge, tagged {@code state} (a
 * {@link NodeState} in lower case) instead of {@code election}, 1 while this node is in
 * that state, else 0: the node-level states that make the health of every election DOWN,
 * each a series of its own from the start, so that an alert needs no health check;
 * <li>{@code leader.election.leader.only.skipped}: counter of {@code @LeaderOnly} calls
 * skipped because this node did not lead;
 * <li>{@code leader.election.leader.only.runs}: timer of the {@code @LeaderOnly} runs
 * that ended on this node, tagged {@code outcome} ({@code completed}, {@code failed} or
 * {@code refused_by_fence}: the {@link LeaderOnlyRun.Outcome} in lower case; skipped
 * calls are counted by {@code leader.election.leader.only.skipped});
 * <li>{@code leader.election.leader.only.overdue}: gauge, how many {@code @LeaderOnly}
 * runs on this node still run although their {@code maxRunTime} has passed
 * ({@link LeaderOnlyRuns#runsPastMaxRunTime(String)}): the hung job that the leader gauge
 * does not show, since the heartbeat renews the lease on its own threads. {@code runs}
 * records such a run only when it ends, this gauge while it overruns. It exists for every
 * election with meters of its own, at 0 while no run is past its bound;
 * <li>{@code leader.election.partitions.owned}: gauge, tagged {@code group} instead of
 * {@code election}, how many of the group's partitions this node owns;
 * <li>{@code leader.election.partitions.transitions}: counter, tagged {@code group},
 * {@code type} and {@code reason}, of this node's gains and losses of the group's
 * partitions.
 * </ul>
 * The elections of partitions have no meters of their own: a group of hundreds of
 * partitions would otherwise add hundreds of time series per meter. Nor have the
 * elections beyond the first {@code leader-election.metrics.per-election-limit} (1,000 by
 * default) this node runs: an application with an election per tenant would otherwise
 * spend its heap and its metrics backend on hundreds of thousands of series. Every
 * election outside partition groups, within the limit or not, is counted by the node's
 * totals:
 * <ul>
 * <li>{@code leader.election.elections}: gauge, how many elections this node runs;
 * <li>{@code leader.election.elections.led}: gauge, how many of them it leads now;
 * <li>{@code leader.election.elections.transitions}: counter of this node's changes of
 * leadership in any of them, tagged {@code type} and {@code reason} as above.
 * </ul>
 * Receives the changes as a {@link LeadershipListener} (on the election's notification
 * thread), the skipped calls as a {@link SkippedInvocationListener} and the ended runs as
 * a {@link LeaderOnlyRunListener}.
 */
public class LeaderElectionMetrics
		implements MeterBinder, LeadershipListener, SkippedInvocationListener, LeaderOnlyRunListener {

	private static final Logger logger = LoggerFactory.getLogger(LeaderElectionMetrics.class);

	private static final String PREFIX = "leader.election.";

	/** Most elections with meters of their own unless configured otherwise. */
	public static final int DEFAULT_PER_ELECTION_LIMIT = 1_000;

	private final Supplier<ElectionService> electionService;

	private final int perElectionLimit;

	private final Supplier<@Nullable LeaderOnlyRuns> leaderOnlyRuns;

	private final Map<String, AtomicLong> seenTerms = new ConcurrentHashMap<>();

	private final Set<String> gauged = ConcurrentHashMap.newKeySet();

	private final Set<String> gaugedGroups = ConcurrentHashMap.newKeySet();

	/** Whether {@link #perElectionLimit} elections have meters of their own. */
	private volatile boolean limitReached;

	private volatile @Nullable MeterRegistry registry;

	/**
	 * Create the meters.
	 * @param electionService supplies the election service; called lazily, since the
	 * service is itself told about changes through this listener
	 */
	public LeaderElectionMetrics(Supplier<ElectionService> electionService) {
		this(electionService, DEFAULT_PER_ELECTION_LIMIT);
	}

	/**
	 * Create the meters.
	 * @param electionService supplies the election service; called lazily, since the
	 * service is itself told about changes through this listener
	 * @param perElectionLimit most elections with meters of their own, in the order they
	 * get them (at start-up, then as they are joined); 0 for none
	 */
	public LeaderElectionMetrics(Supplier<ElectionService> electionService, int perElectionLimit) {
		this(electionService, perElectionLimit, () -> null);
	}

	/**
	 * Create the meters.
	 * @param electionService supplies the election service; called lazily, since the
	 * service is itself told about changes through this listener
	 * @param perElectionLimit most elections with meters of their own, in the order they
	 * get them (at start-up, then as they are joined); 0 for none
	 * @param leaderOnlyRuns supplies the record of the {@code @LeaderOnly} calls whose
	 * overdue runs the {@code leader.election.leader.only.overdue} gauges count, lazily
	 * (the record itself tells this listener of the runs); may supply {@code null} for
	 * none
	 */
	public LeaderElectionMetrics(Supplier<ElectionService> electionService, int perElectionLimit,
			Supplier<@Nullable LeaderOnlyRuns> leaderOnlyRuns) {
		if (perElectionLimit < 0) {
			throw new IllegalArgumentException("perElectionLimit must not be negative, was " + perElectionLimit);
		}
		this.electionService = electionService;
		this.perElectionLimit = perElectionLimit;
		this.leaderOnlyRuns = leaderOnlyRuns;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registry = registry;
		Gauge.builder(PREFIX + "elections", this, (metrics) -> metrics.elections(false))
			.description("How many elections this node runs (partitions not counted)")
			.strongReference(true)
			.register(registry);
		Gauge.builder(PREFIX + "elections.led", this, (metrics) -> metrics.elections(true))
			.description("How many elections this node leads now (partitions not counted)")
			.strongReference(true)
			.register(registry);
		for (NodeState state : NodeState.values()) {
			Gauge.builder(PREFIX + "node.state", this, (metrics) -> metrics.isIn(state) ? 1 : 0)
				.description("Whether this node is in the state (1) or not (0); every election's health is then DOWN")
				.tag("state", state.name().toLowerCase(Locale.ROOT))
				.strongReference(true)
				.register(registry);
		}
		slowRounds(registry);
		for (DatabaseFailureKind kind : DatabaseFailureKind.values()) {
			FunctionCounter
				.builder(PREFIX + "heartbeat.failures", this,
						(metrics) -> metrics.electionService.get().failedHeartbeatRounds(kind))
				.description("Heartbeat rounds that failed, by the kind of their first failure")
				.tag("kind", kind.name().toLowerCase(Locale.ROOT))
				.register(registry);
		}
		this.electionService.get().elections().forEach((election) -> registerGauges(registry, election.name()));
	}

	@Override
	public void granted(String election, String nodeId, long term) {
		AtomicLong seen = termOf(election);
		if (seen != null) {
			seen.accumulateAndGet(term, Math::max);
		}
		countTransition(election, "granted", "none");
	}

	@Override
	public void revoked(String election, String nodeId, long term, RevocationReason reason) {
		countTransition(election, "revoked", reason.name().toLowerCase(Locale.ROOT));
	}

	@Override
	public void leaderChanged(String election, @Nullable String previousLeader, @Nullable String newLeader, long term) {
		AtomicLong seen = termOf(election);
		if (seen != null) {
			seen.set(term);
		}
	}

	@Override
	public void heartbeat(String nodeId, int elections, boolean succeeded, Duration duration) {
		MeterRegistry registry = this.registry;
		if (registry != null) {
			Timer.builder(PREFIX + "heartbeat")
				.description(
						"Heartbeat rounds of this node: the refresh of its session, which renews every lease it holds, the read of its elections and their changes of holder")
				.tag("outcome", succeeded ? "success" : "failure")
				.register(registry)
				.record(duration);
			if (succeeded
					&& duration.compareTo(this.electionService.get().settings().statementTimeout().dividedBy(2)) > 0) {
				slowRounds(registry).increment();
			}
		}
	}

	/**
	 * The counter of slow rounds, registered at 0 when bound so that a rate of it exists
	 * before the first slow round.
	 */
	private static Counter slowRounds(MeterRegistry registry) {
		return Counter.builder(PREFIX + "heartbeat.slow")
			.description("Heartbeat rounds that succeeded but took longer than half the statement timeout:"
					+ " the database answers slowly, and a little slower would fail rounds")
			.register(registry);
	}

	/** Whether this node is in the state, by the rule of the elections' health. */
	boolean isIn(NodeState state) {
		ElectionService service = this.electionService.get();
		if (service.isWaitingForDatabase()) {
			return state == NodeState.WAITING_FOR_DATABASE;
		}
		return service.elections().stream().findFirst().map(NodeState::of).orElse(null) == state;
	}

	@Override
	public void skipped(String election, Method method) {
		MeterRegistry registry = registeredFor(election);
		if (registry != null) {
			Counter.builder(PREFIX + "leader.only.skipped")
				.description("@LeaderOnly calls skipped because this node did not lead")
				.tag("election", election)
				.register(registry)
				.increment();
		}
	}

	@Override
	public void runEnded(LeaderOnlyRun run, Duration duration) {
		MeterRegistry registry = registeredFor(run.election());
		if (registry != null) {
			Timer.builder(PREFIX + "leader.only.runs")
				.description("@LeaderOnly runs that ended on this node, by outcome")
				.tag("election", run.election())
				.tag("outcome", run.outcome().name().toLowerCase(Locale.ROOT))
				.register(registry)
				.record(duration);
		}
	}

	private long overdueLeaderOnlyRuns(String election) {
		LeaderOnlyRuns runs = this.leaderOnlyRuns.get();
		return (runs != null) ? runs.runsPastMaxRunTime(election).size() : 0;
	}

	private void countTransition(String election, String type, String reason) {
		String group = PartitionGroup.groupOf(election);
		if (group != null) {
			MeterRegistry registry = registeredForGroup(group);
			if (registry != null) {
				Counter.builder(PREFIX + "partitions.transitions")
					.description("Gains and losses of this node's partitions of the group")
					.tag("group", group)
					.tag("type", type)
					.tag("reason", reason)
					.register(registry)
					.increment();
			}
			return;
		}
		MeterRegistry registry = registeredFor(election);
		if (registry != null) {
			Counter.builder(PREFIX + "transitions")
				.description("Changes of this node's leadership")
				.tag("election", election)
				.tag("type", type)
				.tag("reason", reason)
				.register(registry)
				.increment();
		}
		// After the election's own counter, so that whoever sees the total sees that one
		// too.
		MeterRegistry totals = this.registry;
		if (totals != null) {
			Counter.builder(PREFIX + "elections.transitions")
				.description("Changes of this node's leadership of any election (partitions not counted)")
				.tag("type", type)
				.tag("reason", reason)
				.register(totals)
				.increment();
		}
	}

	/**
	 * The registry, once bound, with the gauges of the election registered (elections can
	 * be joined after start-up).
	 * @return the registry, or {@code null} if not bound yet or the election has no
	 * meters of its own
	 */
	private @Nullable MeterRegistry registeredFor(String election) {
		MeterRegistry registry = this.registry;
		if (registry != null) {
			registerGauges(registry, election);
		}
		return (this.gauged.contains(election)) ? registry : null;
	}

	private @Nullable MeterRegistry registeredForGroup(String group) {
		MeterRegistry registry = this.registry;
		if (registry != null && this.gaugedGroups.add(group)) {
			Gauge.builder(PREFIX + "partitions.owned", this, (metrics) -> metrics.ownedPartitions(group))
				.description("How many of the group's partitions this node owns")
				.tag("group", group)
				.strongReference(true)
				.register(registry);
		}
		return registry;
	}

	private long ownedPartitions(String group) {
		return this.electionService.get()
			.elections()
			.stream()
			.filter((election) -> group.equals(PartitionGroup.groupOf(election.name())) && election.isLeader())
			.count();
	}

	private long elections(boolean led) {
		return this.electionService.get()
			.elections()
			.stream()
			.filter((election) -> PartitionGroup.groupOf(election.name()) == null && (!led || election.isLeader()))
			.count();
	}

	private void registerGauges(MeterRegistry registry, String name) {
		String group = PartitionGroup.groupOf(name);
		if (group != null) {
			registeredForGroup(group);
			return;
		}
		if (this.gauged.contains(name) || this.limitReached) {
			return;
		}
		Election election = this.electionService.get().findElection(name);
		if (election == null || !withinLimit(name)) {
			return;
		}
		Gauge.builder(PREFIX + "leader", election, (e) -> e.isLeader() ? 1 : 0)
			.description("Whether this node leads the election (1) or not (0)")
			.tag("election", name)
			.strongReference(true)
			.register(registry);
		Gauge.builder(PREFIX + "term", seenTerm(name), AtomicLong::get)
			.description("Term (fencing token) of the leader this node last saw")
			.tag("election", name)
			.strongReference(true)
			.register(registry);
		Gauge.builder(PREFIX + "leader.only.overdue", this, (metrics) -> metrics.overdueLeaderOnlyRuns(name))
			.description("@LeaderOnly runs on this node still running although their maxRunTime has passed")
			.tag("election", name)
			.strongReference(true)
			.register(registry);
	}

	/**
	 * Take the election into those with meters of their own, if the limit allows.
	 * @return whether it was taken now (not before)
	 */
	private synchronized boolean withinLimit(String name) {
		if (this.gauged.contains(name) || this.limitReached) {
			return false;
		}
		if (this.gauged.size() >= this.perElectionLimit) {
			this.limitReached = true;
			logger.info("Elections beyond the first {} have no meters of their own; leader.election.elections, "
					+ ".elections.led and .elections.transitions count them (leader-election.metrics.per-election-limit)",
					this.perElectionLimit);
			return false;
		}
		return this.gauged.add(name);
	}

	/**
	 * The term last seen of an election that has, or may still get, a term gauge: none is
	 * kept for partitions or elections beyond the limit.
	 */
	private @Nullable AtomicLong termOf(String election) {
		if (PartitionGroup.groupOf(election) != null || (this.limitReached && !this.gauged.contains(election))) {
			return null;
		}
		return seenTerm(election);
	}

	private AtomicLong seenTerm(String election) {
		return this.seenTerms.computeIfAbsent(election, (key) -> new AtomicLong());
	}

}
