package io.github.dbleader.autoconfigure.metrics;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.aop.SkippedInvocationListener;
import io.github.dbleader.election.partition.PartitionGroup;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

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
 * <li>{@code leader.election.heartbeat.slow}: counter of the rounds that succeeded but took
 * longer than half the statement timeout (the database answers slowly; a little slower
 * would fail rounds);
 * <li>{@code leader.election.leader.only.skipped}: counter of {@code @LeaderOnly} calls
 * skipped because this node did not lead;
 * <li>{@code leader.election.partitions.owned}: gauge, tagged {@code group} instead of
 * {@code election}, how many of the group's partitions this node owns;
 * <li>{@code leader.election.partitions.transitions}: counter, tagged {@code group},
 * {@code type} and {@code reason}, of this node's gains and losses of the group's
 * partitions.
 * </ul>
 * The elections of partitions have no meters of their own: a group of hundreds of
 * partitions would otherwise add hundreds of time series per meter.
 * Receives the changes as a {@link LeadershipListener} (on the election's notification
 * thread) and the skipped calls as a {@link SkippedInvocationListener}.
 */
public class LeaderElectionMetrics implements MeterBinder, LeadershipListener, SkippedInvocationListener {

	private static final String PREFIX = "leader.election.";

	private final Supplier<ElectionService> electionService;

	private final Map<String, AtomicLong> seenTerms = new ConcurrentHashMap<>();

	private final Set<String> gauged = ConcurrentHashMap.newKeySet();

	private final Set<String> gaugedGroups = ConcurrentHashMap.newKeySet();

	private volatile @Nullable MeterRegistry registry;

	/**
	 * Create the meters.
	 * @param electionService supplies the election service; called lazily, since the service
	 * is itself told about changes through this listener
	 */
	public LeaderElectionMetrics(Supplier<ElectionService> electionService) {
		this.electionService = electionService;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registry = registry;
		this.electionService.get().elections().forEach((election) -> registerGauges(registry, election.name()));
	}

	@Override
	public void granted(String election, String nodeId, long term) {
		seenTerm(election).accumulateAndGet(term, Math::max);
		countTransition(election, "granted", "none");
	}

	@Override
	public void revoked(String election, String nodeId, long term, RevocationReason reason) {
		countTransition(election, "revoked", reason.name().toLowerCase(Locale.ROOT));
	}

	@Override
	public void leaderChanged(String election, @Nullable String previousLeader, @Nullable String newLeader,
			long term) {
		seenTerm(election).set(term);
	}

	@Override
	public void heartbeat(String nodeId, int elections, boolean succeeded, Duration duration) {
		MeterRegistry registry = this.registry;
		if (registry != null) {
			Timer.builder(PREFIX + "heartbeat")
				.description("Heartbeat rounds of this node: batched candidacy, renewals and reads of all its elections")
				.tag("outcome", succeeded ? "success" : "failure")
				.register(registry)
				.record(duration);
			if (succeeded && duration.compareTo(this.electionService.get().settings().statementTimeout().dividedBy(2)) > 0) {
				Counter.builder(PREFIX + "heartbeat.slow")
					.description("Heartbeat rounds that succeeded but took longer than half the statement timeout:"
							+ " the database answers slowly, and a little slower would fail rounds")
					.register(registry)
					.increment();
			}
		}
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
	}

	/**
	 * The registry, once bound, with the gauges of the election registered (elections can
	 * be joined after start-up).
	 */
	private @Nullable MeterRegistry registeredFor(String election) {
		MeterRegistry registry = this.registry;
		if (registry != null) {
			registerGauges(registry, election);
		}
		return registry;
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

	private void registerGauges(MeterRegistry registry, String name) {
		String group = PartitionGroup.groupOf(name);
		if (group != null) {
			registeredForGroup(group);
			return;
		}
		if (this.gauged.contains(name)) {
			return;
		}
		Election election = this.electionService.get().findElection(name);
		if (election == null || !this.gauged.add(name)) {
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
	}

	private AtomicLong seenTerm(String election) {
		return this.seenTerms.computeIfAbsent(election, (key) -> new AtomicLong());
	}

}
