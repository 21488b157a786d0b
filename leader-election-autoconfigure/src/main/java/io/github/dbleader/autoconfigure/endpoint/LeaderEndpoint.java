package io.github.dbleader.autoconfigure.endpoint;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import io.github.dbleader.election.Candidate;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.autoconfigure.endpoint.LeaseReader.Outcome;
import io.github.dbleader.autoconfigure.endpoint.LeaseReader.Read;
import io.github.dbleader.election.LeaseRepository;
import io.github.dbleader.election.LeaseSighting;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.NoLeaseException;
import io.github.dbleader.election.UnknownCandidateException;
import io.github.dbleader.election.aop.LeaderOnlyRun;
import io.github.dbleader.election.aop.LeaderOnlyRuns;
import io.github.dbleader.election.partition.PartitionGroup;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@link Endpoint @Endpoint} that shows who leads each election, as the database says,
 * and lets an operator move leadership safely.
 *
 * <ul>
 * <li>read: every election this node runs ({@code GET /actuator/leader}), or one election
 * by name ({@code GET /actuator/leader/{election}}), including elections this node does
 * not run but that have a lease row; an election with neither is unknown (404);
 * <li>write: force leadership to a live candidate, this node by default ({@code POST
 * /actuator/leader/{election}} with an optional body {@code {"nodeId": "..."}}). The
 * current leader hands over at its next renewal, so the change takes about two renew
 * intervals and there are never two leaders;
 * <li>delete: force a re-election ({@code DELETE /actuator/leader/{election}}); the
 * leader steps down at its next renewal and another live candidate takes over.
 * </ul>
 * Reads wait for the database at most a read timeout (the statement timeout by default),
 * however the database fails (frozen, unreachable, refusing connections, pool exhausted);
 * then they answer with this node's own view, marked {@code stale}: its belief, the lease
 * as its heartbeat last read it, the candidates of the endpoint's last successful read,
 * and for how long the heartbeat has failed to reach the database. Each election also
 * shows this node's recent calls of its {@code @LeaderOnly} methods
 * ({@link LeaderOnlyRuns}): those running, then the last ones that ended, newest first.
 * Writes wait as long ({@link TimeBound}); one the database does not answer in time fails
 * with {@link DatabaseUnavailableException} (HTTP 503), its outcome unknown.
 * <p>
 * Write and delete apply only to elections this node runs; invalid requests change
 * nothing and fail with a message ({@link InvalidEndpointRequestException}, HTTP 400; an
 * unknown election is {@link UnknownTargetException}, 404), the same over HTTP and JMX
 * ({@link EndpointErrors}). Over HTTP, a POST must declare
 * {@code Content-Type: application/json} (as every actuator write with parameters), its
 * body may be empty; properties without a value are left out of the JSON, as everywhere
 * in the actuator. Read-only by default: writes need
 * {@code management.endpoint.leader.access=unrestricted}.
 */
@Endpoint(id = "leader", defaultAccess = Access.READ_ONLY)
public class LeaderEndpoint implements AutoCloseable {

	/**
	 * Most elections the listing shows, the first in name order: each is read from the
	 * database (its lease and its candidates) within one statement timeout, and a node
	 * may run a hundred thousand. {@code GET /actuator/leader/{election}} shows any one
	 * of them.
	 */
	public static final int LISTED_ELECTIONS = 100;

	/** Most names an error message lists. */
	private static final int NAMES_IN_MESSAGES = 20;

	private final ElectionService electionService;

	private final LeaseReader reader;

	private final TimeBound writes;

	private final @Nullable LeaderOnlyRuns leaderOnlyRuns;

	/**
	 * Create an endpoint that waits for the database at most one statement timeout of the
	 * election service.
	 * @param electionService the elections of this node
	 * @param leaseRepository where to read leases and candidates
	 */
	public LeaderEndpoint(ElectionService electionService, LeaseRepository leaseRepository) {
		this(electionService, leaseRepository, electionService.settings().statementTimeout());
	}

	/**
	 * Create an endpoint.
	 * @param electionService the elections of this node
	 * @param leaseRepository where to read leases and candidates
	 * @param readTimeout longest wait for the database; then a read answers with this
	 * node's last view, and a write fails with {@link DatabaseUnavailableException}
	 */
	public LeaderEndpoint(ElectionService electionService, LeaseRepository leaseRepository, Duration readTimeout) {
		this(electionService, leaseRepository, readTimeout, null);
	}

	/**
	 * Create an endpoint that shows the recent {@code @LeaderOnly} calls of each
	 * election.
	 * @param electionService the elections of this node
	 * @param leaseRepository where to read leases and candidates
	 * @param readTimeout longest wait for the database; then a read answers with this
	 * node's last view, and a write fails with {@link DatabaseUnavailableException}
	 * @param leaderOnlyRuns the record of the {@code @LeaderOnly} calls, or {@code null}
	 * to show none
	 */
	public LeaderEndpoint(ElectionService electionService, LeaseRepository leaseRepository, Duration readTimeout,
			@Nullable LeaderOnlyRuns leaderOnlyRuns) {
		this.electionService = electionService;
		this.reader = new LeaseReader(leaseRepository, electionService.settings().leaseDuration(), readTimeout);
		this.writes = new TimeBound("leader-endpoint-write", 2, 16, readTimeout);
		this.leaderOnlyRuns = leaderOnlyRuns;
	}

	/**
	 * Describe the elections this node runs, up to {@value #LISTED_ELECTIONS}, the first
	 * in name order.
	 * @return this node's id, how many elections it runs and the first of them by name
	 */
	@ReadOperation
	public LeaderDescriptor leader() {
		Map<String, ElectionDescriptor> elections = new LinkedHashMap<>();
		TreeSet<String> all = listedElections();
		List<String> names = all.stream().limit(LISTED_ELECTIONS).toList();
		this.reader.read(names).forEach((name, outcome) -> elections.put(name, describe(name, outcome)));
		return new LeaderDescriptor(this.electionService.nodeId(), this.electionService.isWaitingForDatabase(),
				all.size(), elections);
	}

	/**
	 * Describe one election.
	 * @param election the election name
	 * @return the election
	 * @throws UnknownTargetException if the election is neither run by this node nor has
	 * a lease row
	 * @throws DatabaseUnavailableException if the election is not run by this node, the
	 * database does not answer in time and this node never read the election before
	 */
	@ReadOperation
	public ElectionDescriptor election(@Selector String election) {
		requireValidElectionName(election);
		Outcome outcome = this.reader.read(List.of(election)).get(election);
		if (this.electionService.findElection(election) == null) {
			Read fresh = outcome.fresh();
			if (fresh != null && fresh.lease().isEmpty()) {
				throw new UnknownTargetException(
						"Election '" + election + "' is unknown: this node does not run it and it has no lease");
			}
			if (fresh == null && outcome.last() == null) {
				throw new DatabaseUnavailableException("Election '" + election + "' is not run by this node and "
						+ outcome.error() + "; this node has not read it before");
			}
		}
		return describe(election, outcome);
	}

	/**
	 * Force leadership of an election to a node by safe hand-over.
	 * @param election the election name
	 * @param nodeId the node that should lead, or {@code null} for this node
	 * @return the election after the request: the hand-over is pending until the current
	 * leader carries it out
	 * @throws DatabaseUnavailableException if the database did not answer in time: the
	 * hand-over may still be requested
	 */
	@WriteOperation
	// Spring Boot 3's actuator (leader-election-spring-boot-3-autoconfigure compiles this
	// class too) takes a parameter for optional only with Spring's @Nullable, deprecated
	// in Spring Framework 7; without it a POST without a body gets a 400 there. Boot 4
	// reads JSpecify's.
	@SuppressWarnings("deprecation")
	public ElectionDescriptor forceLeader(@Selector String election,
			@org.springframework.lang.Nullable @Nullable String nodeId) {
		Election target = requireElectionOfThisNode(election);
		String leader = (nodeId != null) ? nodeId : this.electionService.nodeId();
		if (leader.isBlank() || leader.length() > ElectionService.MAX_NODE_ID_LENGTH) {
			throw new InvalidEndpointRequestException("Invalid node id '" + abbreviate(leader) + "'",
					"Node id must be 1 to " + ElectionService.MAX_NODE_ID_LENGTH + " characters long but was "
							+ leader.length());
		}
		try {
			this.writes.write("Hand-over of election '" + election + "' to '" + leader + "'", () -> {
				target.forceLeader(leader);
				return null;
			});
		}
		catch (UnknownCandidateException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(),
					"Node '" + leader + "' is not a live candidate of election '" + election + "'; live candidates are "
							+ liveCandidates(election));
		}
		catch (NoLeaseException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(),
					"Election '" + election + "' has no lease yet; try again after the first heartbeat");
		}
		return describeAfterWrite(election);
	}

	/**
	 * Force a re-election: the current leader steps down at its next renewal.
	 * @param election the election name
	 * @return the election after the request
	 * @throws DatabaseUnavailableException if the database did not answer in time: the
	 * re-election may still be requested
	 */
	@DeleteOperation
	public ElectionDescriptor forceReelection(@Selector String election) {
		Election target = requireElectionOfThisNode(election);
		if (!this.writes.write("Re-election of election '" + election + "'", target::forceReelection)) {
			throw new InvalidEndpointRequestException("Election '" + election + "' has no leader",
					"Election '" + election + "' has no leader to re-elect");
		}
		return describeAfterWrite(election);
	}

	private String liveCandidates(String election) {
		Read read = this.reader.read(List.of(election)).get(election).fresh();
		return (read != null) ? read.candidates().stream().map(Candidate::nodeId).toList().toString()
				: "unknown (" + this.reader.timeout().toMillis() + " ms passed without an answer from the database)";
	}

	/**
	 * The elections the listing shows: not those of partitions, which
	 * {@code /actuator/partitions} shows per group, and which would make the listing read
	 * one lease per partition.
	 */
	private TreeSet<String> listedElections() {
		TreeSet<String> names = new TreeSet<>();
		for (Election election : this.electionService.elections()) {
			if (PartitionGroup.groupOf(election.name()) == null) {
				names.add(election.name());
			}
		}
		return names;
	}

	private Election requireElectionOfThisNode(String election) {
		requireValidElectionName(election);
		Election found = this.electionService.findElection(election);
		if (found == null) {
			throw new InvalidEndpointRequestException("Election '" + election + "' is not run by this node",
					"Election '" + election + "' is not run by this node; elections run here are "
							+ someOf(listedElections()));
		}
		return found;
	}

	/**
	 * The first names, and how many more there are: a node may run a hundred thousand.
	 */
	private static String someOf(TreeSet<String> names) {
		if (names.size() <= NAMES_IN_MESSAGES) {
			return names.toString();
		}
		List<String> first = names.stream().limit(NAMES_IN_MESSAGES).toList();
		return "[" + String.join(", ", first) + ", and " + (names.size() - NAMES_IN_MESSAGES) + " more]";
	}

	private static void requireValidElectionName(String election) {
		if (election.isBlank() || election.length() > ElectionService.MAX_ELECTION_NAME_LENGTH) {
			throw new InvalidEndpointRequestException("Invalid election name '" + abbreviate(election) + "'",
					"Election name must be 1 to " + ElectionService.MAX_ELECTION_NAME_LENGTH
							+ " characters long but was " + election.length());
		}
	}

	private static String abbreviate(String value) {
		return (value.length() > 40) ? value.substring(0, 40) + "..." : value;
	}

	private ElectionDescriptor describeAfterWrite(String name) {
		return describe(name, this.reader.readAfterWrite(name));
	}

	private ElectionDescriptor describe(String name, Outcome outcome) {
		Election election = this.electionService.findElection(name);
		boolean thisNodeLeads = election != null && election.isLeader();
		boolean nodeIdInUseElsewhere = election != null && election.isNodeIdInUseElsewhere();
		Duration unreachableFor = (election != null)
				? election.databaseUnreachableFor().map(LeaderEndpoint::millis).orElse(null) : null;
		Instant unreachableSince = (unreachableFor != null)
				? Instant.now().minus(unreachableFor).truncatedTo(ChronoUnit.MILLIS) : null;
		Read fresh = outcome.fresh();
		Read last = outcome.last();
		Read candidatesRead = (fresh != null) ? fresh : last;
		List<CandidateDescriptor> candidates = (candidatesRead != null) ? candidatesRead.candidates()
			.stream()
			.map((candidate) -> new CandidateDescriptor(candidate.nodeId(), candidate.firstSeen(),
					candidate.lastSeen()))
			.toList() : List.of();
		Instant candidatesSeenAt = (candidatesRead != null)
				? candidatesRead.lease().map(LeaseState::databaseTime).orElse(null) : null;
		Duration candidatesAge = (candidatesRead != null) ? millis(candidatesRead.age()) : null;
		LeaseSighting sighting = (fresh != null) ? sighting(fresh)
				: newest((election != null) ? election.lastSeenLease().orElse(null) : null, last);
		List<RunDescriptor> runs = recentRuns(name);
		if (sighting == null) {
			return new ElectionDescriptor(null, 0, thisNodeLeads, nodeIdInUseElsewhere, null, null, null, false, null,
					false, candidates, fresh == null, outcome.error(), null, null, candidatesSeenAt, candidatesAge,
					unreachableFor, unreachableSince, runs);
		}
		LeaseState state = sighting.lease();
		// A lease read a while ago may have run out since: estimated on the database
		// clock.
		boolean expired = state.expired()
				|| (fresh == null && !state.databaseTime().plus(sighting.age()).isBefore(state.expiresAt()));
		return new ElectionDescriptor(expired ? null : state.leaderId(), state.term(), thisNodeLeads,
				nodeIdInUseElsewhere, state.acquiredAt(), state.renewedAt(), state.expiresAt(), expired,
				state.handoverTo(), state.reelectionRequested(), candidates, fresh == null, outcome.error(),
				state.databaseTime(), millis(sighting.age()), candidatesSeenAt, candidatesAge, unreachableFor,
				unreachableSince, runs);
	}

	private List<RunDescriptor> recentRuns(String election) {
		if (this.leaderOnlyRuns == null) {
			return List.of();
		}
		return this.leaderOnlyRuns.recentRuns(election)
			.stream()
			.map((run) -> new RunDescriptor(run.nodeId(), (run.term() >= 0) ? run.term() : null, run.method(),
					run.startedAt(), run.endedAt(), run.outcome()))
			.toList();
	}

	private static @Nullable LeaseSighting sighting(Read read) {
		return read.lease().map((lease) -> new LeaseSighting(lease, read.age())).orElse(null);
	}

	/** Milliseconds are precise enough for people, and the JSON stays short. */
	private static Duration millis(Duration duration) {
		return duration.truncatedTo(ChronoUnit.MILLIS);
	}

	/** The newer of the heartbeat's sighting and the endpoint's last successful read. */
	private static @Nullable LeaseSighting newest(@Nullable LeaseSighting heartbeat, @Nullable Read endpoint) {
		LeaseSighting read = (endpoint != null) ? sighting(endpoint) : null;
		if (heartbeat == null || read == null) {
			return (heartbeat != null) ? heartbeat : read;
		}
		return (read.age().compareTo(heartbeat.age()) < 0) ? read : heartbeat;
	}

	int pendingReads() {
		return this.reader.pendingReads();
	}

	@Override
	public void close() {
		this.reader.close();
		this.writes.close();
	}

	/**
	 * Description of this node's elections.
	 *
	 * @param nodeId this node's id
	 * @param waitingForDatabase whether this node waits for its database before it joins
	 * any election (the database has not answered since the node started), so that it
	 * leads none
	 * @param electionCount how many elections this node runs, partitions not counted
	 * @param elections the elections this node runs, by name: the first
	 * {@value LeaderEndpoint#LISTED_ELECTIONS} in name order where it runs more
	 */
	public record LeaderDescriptor(String nodeId, boolean waitingForDatabase, int electionCount,
			Map<String, ElectionDescriptor> elections) implements OperationResponseBody {

	}

	/**
	 * Description of one election, as the database says; or, when the database does not
	 * answer within the read timeout ({@code stale}), as this node last saw it.
	 *
	 * @param leader the node that leads, or {@code null} if the lease is vacant or
	 * expired
	 * @param term fencing token of the current (or last) leader; 0 if there never was one
	 * @param thisNodeLeads whether this node believes it leads, right now
	 * @param nodeIdInUseElsewhere whether another running instance uses this node's id,
	 * so that this one takes no part in the election
	 * @param acquiredAt when the leader acquired the lease (database clock)
	 * @param renewedAt when the leader last renewed it
	 * @param expiresAt when the lease expires unless renewed
	 * @param expired whether the lease has expired without a successor yet
	 * @param handoverTo node that leadership is being handed over to, if pending
	 * @param reelectionPending whether a re-election is pending
	 * @param candidates the nodes seen alive within the lease duration
	 * @param stale whether the database did not answer in time, so that the lease and the
	 * candidates are those this node saw last (see {@code leaseAge} and
	 * {@code candidatesAge}); {@code expired} is then estimated from the lease's age
	 * @param databaseError why the database did not answer, if {@code stale}
	 * @param leaseSeenAt when the lease shown was read (database clock)
	 * @param leaseAge how long ago the lease shown was read (this node's clock)
	 * @param candidatesSeenAt when the candidates shown were read (database clock)
	 * @param candidatesAge how long ago the candidates shown were read (this node's
	 * clock)
	 * @param databaseUnreachableFor how long this node's heartbeat has been failing to
	 * reach the database; absent while it reaches it
	 * @param databaseUnreachableSince when the heartbeat began failing (this node's
	 * clock)
	 * @param recentRuns this node's calls of the election's {@code @LeaderOnly} methods:
	 * those running, then the last ones that ended, newest first
	 */
	public record ElectionDescriptor(@Nullable String leader, long term, boolean thisNodeLeads,
			boolean nodeIdInUseElsewhere, @Nullable Instant acquiredAt, @Nullable Instant renewedAt,
			@Nullable Instant expiresAt, boolean expired, @Nullable String handoverTo, boolean reelectionPending,
			List<CandidateDescriptor> candidates, boolean stale, @Nullable String databaseError,
			@Nullable Instant leaseSeenAt, @Nullable Duration leaseAge, @Nullable Instant candidatesSeenAt,
			@Nullable Duration candidatesAge, @Nullable Duration databaseUnreachableFor,
			@Nullable Instant databaseUnreachableSince,
			List<RunDescriptor> recentRuns) implements OperationResponseBody {

	}

	/**
	 * One call of a {@code @LeaderOnly} method on this node (this node's clock).
	 *
	 * @param nodeId this node
	 * @param term the term this node led with when the run started; absent for a skipped
	 * call
	 * @param method the bean's class (simple name), a dot and the method's name
	 * @param startedAt when the call started
	 * @param endedAt when it ended, or {@code null} while it runs
	 * @param outcome {@code RUNNING}, {@code COMPLETED}, {@code FAILED},
	 * {@code REFUSED_BY_FENCE} or {@code SKIPPED}
	 */
	public record RunDescriptor(String nodeId, @Nullable Long term, String method, Instant startedAt,
			@Nullable Instant endedAt, LeaderOnlyRun.Outcome outcome) {

	}

	/**
	 * Description of a live candidate.
	 *
	 * @param nodeId the node
	 * @param firstSeen when it joined the election (database clock)
	 * @param lastSeen its last heartbeat (database clock)
	 */
	public record CandidateDescriptor(String nodeId, Instant firstSeen, Instant lastSeen) {

	}

}
