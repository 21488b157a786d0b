package io.github.dbleader.faults;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import io.github.dbleader.test.TcpProxy;
import io.github.dbleader.test.TcpProxy.Outage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Proves the election's safety and failover bounds under faults, with three processes of
 * the sample application competing in {@code default} (whose leader runs the job) and in
 * {@link SampleNode#OTHER_ELECTIONS three other elections} on the real MySQL-protocol
 * database (lease L = 3 s, renew interval R = 500 ms, guard G = L/5, statement timeout
 * R/2), each recording a fenced {@code fault_job_runs} row per job run every 100 ms. Each
 * scenario injects one fault (signals to a process, or a fault of its {@link TcpProxy})
 * and then checks from the database, the processes' logs and their actuator endpoints:
 * <ul>
 * <li>no two holders' fenced runs overlap and no run of a stale term commits (I4, I5);
 * <li>no exception reaches application code (I7);
 * <li>the failover or recovery time against a bound derived from L, R and G;
 * <li>during database faults, how fast and with what each node's leader endpoint and
 * health answer, timed over HTTP from the test ({@link EndpointWatch});
 * <li>what the fault specifically threatens (belief bounded by the local clock (I2), no
 * leadership from an unacknowledged statement (I3), separate pool (I8), release on
 * shutdown (I10), forced operations (I6)).
 * </ul>
 * The processes are reused across scenarios; each scenario starts from a healed, steady
 * cluster with one leader. The results go to {@code target/fault-report.md}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@ForkUse(ForkUse.Mode.SHARED)
class FaultScenariosIntegrationTests {

	private static final long L = SampleNode.LEASE.toMillis();

	private static final long R = SampleNode.RENEW.toMillis();

	private static final long G = SampleNode.GUARD.toMillis();

	/**
	 * Slack for the job's first run after a change of leader: job interval, round trips,
	 * scheduling.
	 */
	private static final long SLACK = 1000;

	/**
	 * How much longer than a bound a wait goes on, so that a miss is measured rather than
	 * only reported.
	 */
	private static final Duration OBSERVE_BEYOND_BOUND = Duration.ofSeconds(5);

	/**
	 * The leader endpoint, whatever the database does: statement timeout (250 ms), a
	 * round trip and slack.
	 */
	private static final Duration LEADER_ENDPOINT_BOUND = Duration.ofSeconds(1);

	/**
	 * The whole health, whatever the database does: the sample's pool wait (1 s) or
	 * validation (1 s), and slack.
	 */
	private static final Duration HEALTH_BOUND = Duration.ofSeconds(2);

	/**
	 * How long a fenced transaction may hold its fence: the lease rounded up to whole
	 * seconds.
	 */
	private static final long HOLD_LIMIT = (L + 999) / 1000 * 1000;

	private static final List<String> ALL_ENDPOINTS = List.of(EndpointWatch.LEADER, EndpointWatch.ELECTION,
			EndpointWatch.HEALTH);

	private static FaultDatabase database;

	private static Cluster cluster;

	@BeforeAll
	static void startCluster() {
		database = FaultDatabase.forThisFork();
		cluster = new Cluster(database);
		cluster.start(3);
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	/**
	 * 9. A pause shorter than the guard allows (1 s, well under L − G − R = 1.9 s: the
	 * last renewal was at most R before the pause, so the belief has at least 0.9 s left
	 * when the process resumes) changes nothing.
	 */
	@Test
	@Order(1)
	void shortPauseOfTheLeaderChangesNothing() throws Exception {
		scenario("9. short SIGSTOP of the leader (1 s)", 3, (scenario, leader) -> {
			double transitionsBefore = sumOfTransitions();
			long term = currentTerm();
			leader.pause();
			sleep(Duration.ofSeconds(1)); // the pause itself
			long resumedAt = database.now();
			leader.resume();
			await("a renewal by " + leader.id() + " after it resumed").atMost(Duration.ofMillis(2 * R + SLACK))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> renewedBy(leader, resumedAt));
			assertThat(termsSince(scenario)).as("no change of leader after a short pause: terms seen")
				.extracting(LeaseMonitor.Sighting::term)
				.containsOnly(term);
			assertThat(leader.believesItLeads()).as("the paused leader still leads after it resumed").isTrue();
			assertThat(sumOfTransitions()).as("no transition counted (leader.election.transitions of every node)")
				.isEqualTo(transitionsBefore);
			scenario.detail("lease renewed " + (renewalTimeAfter(leader, resumedAt) - resumedAt)
					+ " ms after SIGCONT, same term " + term);
		});
	}

	/**
	 * 7a. Replies on the leader's link 30 ms late, for longer than a lease: each
	 * statement stays well below the statement timeout (250 ms). No change of leader, no
	 * transition.
	 */
	@Test
	@Order(2)
	void slightlySlowDatabaseOnTheLeadersLinkChangesNothing() throws Exception {
		scenario("7a. leader's link slow, below the statement timeout (replies 30 ms late)", 3, (scenario, leader) -> {
			SlowLink result = slowLink(scenario, leader, Duration.ofMillis(30));
			assertThat(result.revocations()).as("the leader keeps believing with replies 30 ms late").isEmpty();
			assertThat(result.terms()).as("no change of leader with replies 30 ms late: terms seen")
				.containsOnly(result.term());
			assertThat(result.transitions()).as("no transition with replies 30 ms late").isZero();
		});
	}

	/**
	 * 7b. Replies on the leader's link 100 ms late, for longer than a lease: each
	 * statement stays below the statement timeout, while the node's own fenced job
	 * transaction (about six round trips) holds its fence for longer than that. Renewals
	 * do not wait for the fence (it is a row of its own), so the leader should keep its
	 * lease. Checked here: safety (whoever takes over does so only after the leader
	 * stopped believing, no overlap, no stale write). Whether the leader kept its lease
	 * is measured and reported, not asserted, as 100 ms per round trip is close enough to
	 * the timeout for a loaded machine to tip it over.
	 */
	@Test
	@Order(3)
	void slowerDatabaseOnTheLeadersLinkWithLongFencesIsSafe() throws Exception {
		scenario("7b. leader's link slow, fenced transaction longer than the statement timeout (replies 100 ms late)",
				3, (scenario, leader) -> {
					SlowLink result = slowLink(scenario, leader, Duration.ofMillis(100));
					assertStepsDownBeforeTakeOver(leader, result.revocations(), result.term(), scenario.startedAt());
					scenario
						.detail((result.revocations().isEmpty() ? "leader kept its lease" : "leader lost its belief ("
								+ result.revocations().get(0).reason() + ") with replies 100 ms late") + "; terms seen "
								+ result.terms());
				});
	}

	/**
	 * 7c. Replies on the leader's link 500 ms late (twice the statement timeout): every
	 * statement of the leader times out, so it stops believing at L − G after its last
	 * acknowledged renewal, before any other node may take over (which needs the lease
	 * expired at the database and a whole lease unchanged on its own clock).
	 */
	@Test
	@Order(4)
	void slowDatabaseOnTheLeadersLinkAboveTheStatementTimeout() throws Exception {
		scenario("7c. leader's link slow, above the statement timeout (replies 500 ms late)", 3, (scenario, leader) -> {
			long term = currentTerm();
			long marksFrom = leader.log().mark();
			long slowFrom = database.now();
			leader.proxy().delayReplies(Duration.ofMillis(2 * SampleNode.STATEMENT_TIMEOUT.toMillis()));
			NodeLog.Transition revoked = awaitRevocation(leader, marksFrom, Duration.ofMillis(L));
			scenario.failover("stepped down after replies became 500 ms late", revoked.atMillis() - slowFrom,
					L - G + R);
			// Let the fault last two leases: long enough for a take-over, if any node may
			// take over.
			sleep(Duration.ofMillis(Math.max(0, slowFrom + 2 * L - database.now())));
			leader.proxy().delayReplies(Duration.ZERO);
			List<LeaseMonitor.Sighting> newTerms = assertStepsDownBeforeTakeOver(leader, List.of(revoked), term,
					slowFrom);
			assertThat(revoked.atMillis() - slowFrom).as("I2 belief ends within L - G + R of the first late reply")
				.isLessThanOrEqualTo(L - G + R);
			scenario.detail(leader.id() + " revoked (" + revoked.reason() + ") " + (revoked.atMillis() - slowFrom)
					+ " ms after the link slowed; "
					+ (newTerms.isEmpty() ? "no take-over during the " + 2 * L + " ms of slowness"
							: "taken over by " + newTerms.get(0).leaderId() + " "
									+ (newTerms.get(0).acquiredAt() - revoked.atMillis())
									+ " ms after it stepped down"));
		});
	}

	/**
	 * Slow the leader's replies for L + R, then heal.
	 * @return what happened meanwhile
	 */
	private SlowLink slowLink(Scenario scenario, SampleNode leader, Duration latency) throws InterruptedException {
		long term = currentTerm();
		double transitionsBefore = sumOfTransitions();
		long marksFrom = leader.log().mark();
		long slowFrom = database.now();
		leader.proxy().delayReplies(latency);
		// longer than a lease: a failing leader would have been replaced
		sleep(Duration.ofMillis(L + R));
		leader.proxy().delayReplies(Duration.ZERO);
		long slowUntil = database.now();
		List<LeaseMonitor.Sighting> sightings = cluster.monitor().since(slowFrom);
		long renewals = sightings.stream()
			.filter((sighting) -> leader.id().equals(sighting.leaderId()) && sighting.renewedAt() > slowFrom)
			.count();
		List<NodeLog.Transition> revocations = leader.log()
			.transitions(marksFrom)
			.stream()
			.filter((transition) -> !transition.granted())
			.toList();
		long renewalTimeouts = leader.log()
			.stackTraces(marksFrom)
			.stream()
			.filter(NodeLog.StackTrace::isElectionPoolBrokenConnection)
			.count();
		double transitions = sumOfTransitions() - transitionsBefore;
		scenario.detail("replies " + latency.toMillis() + " ms late for " + (slowUntil - slowFrom) + " ms: " + renewals
				+ " renewals, " + renewalTimeouts + " election statements timed out, " + revocations.size()
				+ " revocations");
		return new SlowLink(term, sightings.stream().map(LeaseMonitor.Sighting::term).distinct().toList(), revocations,
				transitions);
	}

	/**
	 * Check that every term taken by another node after a time began after the leader
	 * stopped believing.
	 * @return the new terms
	 */
	private List<LeaseMonitor.Sighting> assertStepsDownBeforeTakeOver(SampleNode leader,
			List<NodeLog.Transition> revocations, long term, long fromDbMillis) {
		List<LeaseMonitor.Sighting> newTerms = cluster.monitor()
			.terms()
			.stream()
			.filter((sighting) -> sighting.term() > term && sighting.seenAt() >= fromDbMillis)
			.toList();
		for (LeaseMonitor.Sighting taken : newTerms) {
			assertThat(revocations)
				.as("I2 the slow leader %s stepped down before %s took over with term %d", leader.id(),
						taken.leaderId(), taken.term())
				.anyMatch((revoked) -> revoked.term() == term && revoked.atMillis() < taken.acquiredAt());
		}
		return newTerms;
	}

	/**
	 * What happened while a leader's link was slow.
	 *
	 * @param term the leader's term before
	 * @param terms every term seen meanwhile
	 * @param revocations the leader's revocations meanwhile
	 * @param transitions transitions counted by all nodes meanwhile
	 */
	private record SlowLink(long term, List<Long> terms, List<NodeLog.Transition> revocations, double transitions) {
	}

	/**
	 * 8. Ambiguous commits: the leader's renewals (the refreshes of its session) reach
	 * the database and commit there, but their replies are lost. The node must not count
	 * itself leader on such a statement: it stops believing before the lease of its last
	 * acknowledged renewal expires, while the database still shows its lease renewed by
	 * the unacknowledged statements.
	 */
	@Test
	@Order(5)
	void lostReplyOfARenewalDoesNotExtendTheBelief() throws Exception {
		scenario("8. ambiguous commit: renewal replies lost", 3, (scenario, leader) -> {
			long marksFrom = leader.log().mark();
			long lossFrom = database.now();
			// The renewal is the refresh of the leader's session, its node's row.
			leader.proxy().loseRepliesTo("_nodes SET expires_at");
			NodeLog.Transition revoked = awaitRevocation(leader, marksFrom, Duration.ofMillis(L));
			long firstLoss = leader.proxy().firstLossMillis();
			int lost = leader.proxy().lostReplies();
			List<LeaseMonitor.Sighting> sightings = cluster.monitor().since(lossFrom - 2 * R);
			long lastAcknowledged = sightings.stream()
				.filter((sighting) -> leader.id().equals(sighting.leaderId()) && sighting.renewedAt() < firstLoss)
				.mapToLong(LeaseMonitor.Sighting::renewedAt)
				.max()
				.orElseThrow();
			long unacknowledgedExpiry = sightings.stream()
				.filter((sighting) -> leader.id().equals(sighting.leaderId()) && sighting.renewedAt() >= firstLoss)
				.mapToLong(LeaseMonitor.Sighting::expiresAt)
				.max()
				.orElse(0);
			leader.proxy().stopLosingReplies();
			assertThat(lost).as("the proxy lost the reply of at least one renewal").isPositive();
			assertThat(unacknowledgedExpiry)
				.as("the renewals whose replies were lost committed at the database (ambiguous commits)")
				.isPositive();
			assertThat(revoked.atMillis())
				.as("I3 belief never comes from an unacknowledged renewal: %s stops believing before the lease "
						+ "of its last acknowledged renewal (%d) expires", leader.id(), lastAcknowledged)
				.isLessThan(lastAcknowledged + L);
			assertThat(revoked.atMillis())
				.as("I3 the database still held %s's lease, renewed by the lost statements, when it stopped believing",
						leader.id())
				.isLessThan(unacknowledgedExpiry);
			long healedAt = database.now();
			long recovered = awaitExactlyOneBeliever(Duration.ofMillis(2 * R + SLACK)) - healedAt;
			scenario.failover("one leader again after replies flow", recovered, 2 * R + SLACK);
			scenario.detail(lost + " renewal replies lost; stepped down " + (revoked.atMillis() - lastAcknowledged)
					+ " ms after the last acknowledged renewal while the database lease ran to +"
					+ (unacknowledgedExpiry - revoked.atMillis()) + " ms (" + revoked.reason() + ")");
		});
	}

	/**
	 * 10. Business load holds every connection of the leader's application pool (pool of
	 * 2, two {@code SELECT SLEEP(6)}) for two leases: the election renews on its own pool
	 * (I8), so the leader keeps its lease; its job waits for a connection meanwhile.
	 */
	@Test
	@Order(6)
	void exhaustedApplicationPoolDoesNotStopRenewals() throws Exception {
		scenario("10. application pool exhausted on the leader", 3, (scenario, leader) -> {
			long term = currentTerm();
			double transitionsBefore = sumOfTransitions();
			int seconds = (int) (2 * L / 1000);
			long heldFrom = database.now();
			leader.holdApplicationConnections(SampleNode.POOL_SIZE, seconds);
			// The job waits for a connection at most the sample's connection timeout (1
			// s) per run, so a waiter shows up between its runs, not at every poll.
			await("the application pool of " + leader.id() + " exhausted").atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> leader.meter("hikaricp.connections.active") == SampleNode.POOL_SIZE
						&& leader.meter("hikaricp.connections.pending") >= 1);
			// the load lasts
			sleep(Duration.ofMillis(Math.max(0, heldFrom + seconds * 1000L - database.now())));
			long heldUntil = heldFrom + seconds * 1000L;
			long renewals = cluster.monitor()
				.since(heldFrom)
				.stream()
				.filter((sighting) -> leader.id().equals(sighting.leaderId()) && sighting.renewedAt() > heldFrom
						&& sighting.renewedAt() < heldUntil)
				.count();
			long runsWhileHeld = JobRuns.since(database, heldFrom)
				.stream()
				.filter((run) -> run.startedAt() > heldFrom + 1000 && run.finishedAt() < heldUntil - 500)
				.count();
			assertThat(runsWhileHeld).as("the hook exhausted the pool: no job run while it was held").isZero();
			assertThat(termsSince(scenario)).as("I8 the leader keeps its lease while its application pool is exhausted")
				.extracting(LeaseMonitor.Sighting::term)
				.containsOnly(term);
			assertThat(renewals).as("I8 renewals go on while the application pool is exhausted")
				.isGreaterThanOrEqualTo((seconds * 1000L) / R - 2);
			assertThat(sumOfTransitions()).as("no transition while the application pool is exhausted")
				.isEqualTo(transitionsBefore);
			JobRuns.Run resumed = awaitFirstRun("a job run of " + leader.id() + " after the load", heldUntil,
					(run) -> run.nodeId().equals(leader.id()), Duration.ofMillis(SLACK));
			scenario.detail(renewals + " renewals in " + seconds + " s with the pool held, job resumed "
					+ (resumed.startedAt() - heldUntil) + " ms after");
		});
	}

	/**
	 * 4. Forced hand-over ({@code POST /actuator/leader/default} naming a follower) and
	 * forced re-election ({@code DELETE}): each done within two renew intervals (the
	 * leader acts at its next renewal, the successor at its next heartbeat) plus the
	 * slack for the successor's first job run; never two writers (I6).
	 */
	@Test
	@Order(7)
	void forcedHandOverAndReelection() throws Exception {
		scenario("4. forced hand-over (POST) and re-election (DELETE)", 3, (scenario, leader) -> {
			SampleNode target = cluster.others(leader).get(0);
			long requestedAt = database.now();
			target.forceLeader(target.id());
			awaitFailover(scenario, "I6 a forced hand-over takes at most about 2 R", "hand-over", requestedAt,
					(run) -> run.nodeId().equals(target.id()), 2 * R + SLACK);
			assertThat(scenario.transitions(leader)).as("the old leader logs the hand-over")
				.anyMatch((transition) -> !transition.granted() && transition.reason().equals("HANDED_OVER"));

			long deletedAt = database.now();
			target.forceReelection();
			awaitFailover(scenario, "I6 a forced re-election takes at most about 2 R", "re-election", deletedAt,
					(run) -> !run.nodeId().equals(target.id()), 2 * R + SLACK);
		});
	}

	/**
	 * 2. The leader frozen (SIGSTOP) for two leases, frozen inside a fenced transaction:
	 * the proxy stops it the moment its fence (the share lock on the fence row) reached
	 * the database. A follower takes over as from a dead leader: the server drops the
	 * frozen session after the fence's session timeout (the lease, rounded up to
	 * seconds), which rolls it back and frees the lock (I5), so the take-over comes
	 * within L + R + 1 s. After SIGCONT the resumed node's belief has already ended by
	 * its monotonic clock (I2): it commits nothing with its stale term, reports the
	 * revocation and becomes a follower.
	 */
	@Test
	@Order(8)
	void leaderPausedLongerThanTheLeaseResumesAsFollower() throws Exception {
		scenario("2. SIGSTOP of the leader inside a fenced transaction for 2 L, then SIGCONT", 3,
				(scenario, leader) -> {
					long staleTerm = currentTerm();
					double revokedBefore = leader.transitions("revoked");
					AtomicLong pausedAt = new AtomicLong();
					leader.proxy().onStatement("LOCK IN SHARE MODE", () -> {
						leader.pause();
						pausedAt.set(database.now());
					});
					await("the leader frozen right after its fence reached the database").atMost(Duration.ofSeconds(5))
						.pollInterval(Duration.ofMillis(20))
						.until(() -> pausedAt.get() != 0);
					awaitFailover(scenario,
							"I5 a leader frozen inside a fenced transaction is replaced within L + R + 1 s",
							"take-over from the frozen leader", pausedAt.get(),
							(run) -> !run.nodeId().equals(leader.id()), L + R + SLACK);
					// the rest of the pause
					sleep(Duration.ofMillis(Math.max(0, pausedAt.get() + 2 * L - database.now())));
					long resumedAt = database.now();
					long marksFrom = leader.log().mark();
					leader.resume();
					NodeLog.Transition revoked = awaitRevocation(leader, marksFrom, Duration.ofMillis(R + SLACK));
					assertThat(revoked.term()).as("the resumed node revokes its stale term").isEqualTo(staleTerm);
					await("the resumed node reports it is a follower").atMost(Duration.ofMillis(2 * R + SLACK))
						.pollInterval(Duration.ofMillis(50))
						.ignoreExceptions()
						.until(() -> {
							JsonNode election = leader.election();
							return !election.path("thisNodeLeads").asBoolean()
									&& !leader.id().equals(election.path("leader").asString(""));
						});
					assertThat(leader.transitions("revoked")).as("the resumed node counts the revocation")
						.isEqualTo(revokedBefore + 1);
					// a resumed node that kept writing would show it now
					sleep(Duration.ofMillis(2 * R));
					List<JobRuns.Run> late = JobRuns.since(database, pausedAt.get())
						.stream()
						.filter((run) -> run.nodeId().equals(leader.id()) && run.term() == staleTerm)
						.toList();
					assertThat(late).as("I5 no fenced write of the stale term %d after the leader froze", staleTerm)
						.isEmpty();
					scenario.detail(leader.id() + " frozen inside its fenced transaction; revoked term " + staleTerm
							+ " (" + revoked.reason() + ") " + (revoked.atMillis() - resumedAt) + " ms after SIGCONT");
				});
	}

	/**
	 * 3. The database unreachable from every node for L + 2 s: all proxies are cut the
	 * moment the leader's fence reached the database, so the leader is inside a fenced
	 * transaction, and connections hang without an error. Every node stops believing
	 * before the lease could expire at the database (belief ends at L − G after the last
	 * acknowledged renewal, the lease at L after it); after the network is restored
	 * exactly one leader within 2 R plus 1 s for reconnecting, and the job runs again;
	 * nothing reaches application code, not even the broken fenced transaction.
	 */
	@Test
	@Order(9)
	void databaseUnreachableForLongerThanTheLease() throws Exception {
		scenario("3. database unreachable for L + 2 s, cut inside a fenced transaction", 3, (scenario, leader) -> {
			List<SampleNode> nodes = cluster.live();
			long marksFrom = leader.log().mark();
			AtomicLong cutAt = new AtomicLong();
			leader.proxy().onStatement("LOCK IN SHARE MODE", () -> {
				nodes.forEach((node) -> node.proxy().cut(Outage.BLACKHOLE));
				cutAt.set(database.now());
			});
			await("the network cut right after the leader's fence reached the database").atMost(Duration.ofSeconds(5))
				.pollInterval(Duration.ofMillis(20))
				.until(() -> cutAt.get() != 0);
			NodeLog.Transition revoked = awaitRevocation(leader, marksFrom, Duration.ofMillis(L));
			LeaseMonitor.Sighting lastLease = cluster.monitor().latest().orElseThrow();
			// the outage lasts
			sleep(Duration.ofMillis(Math.max(0, cutAt.get() + L + 2000 - database.now())));
			List<SampleNode> believersDuringCut = cluster.believers();
			long restoredAt = database.now();
			nodes.forEach((node) -> node.proxy().restore());
			assertNobodyLedUntilRecovery(scenario, nodes, revoked, lastLease, believersDuringCut, restoredAt);
			scenario.detail(leader.id() + " stopped believing " + (lastLease.expiresAt() - revoked.atMillis())
					+ " ms before its lease expired at the database (" + revoked.reason() + ")");
		});
	}

	/**
	 * 1. {@code kill -9} of the leader: a new leader's first job run within L + R + 1 s.
	 */
	@Test
	@Order(10)
	void killedLeaderIsReplacedWithinLeasePlusRenewInterval() throws Exception {
		scenario("1. kill -9 of the leader", 3, (scenario, leader) -> {
			long killedAt = database.now();
			leader.kill();
			awaitFailover(scenario, "a killed leader is replaced within L + R + 1 s", "first run of a successor",
					killedAt, (run) -> !run.nodeId().equals(leader.id()), L + R + SLACK);
		});
	}

	/**
	 * 5. SIGTERM of the leader: it releases the lease on shutdown (I10), so a successor's
	 * first run comes within R + 1 s instead of a lease.
	 */
	@Test
	@Order(11)
	void gracefulShutdownHandsOverWithinARenewInterval() throws Exception {
		scenario("5. SIGTERM of the leader", 2, (scenario, leader) -> {
			long terminatedAt = database.now();
			leader.terminate();
			awaitFailover(scenario, "I10 a successor runs within R + 1 s of SIGTERM", "first run of a successor",
					terminatedAt, (run) -> !run.nodeId().equals(leader.id()), R + SLACK);
			assertThat(leader.log().contains("released leadership of term"))
				.as("I10 the leader released its lease on shutdown")
				.isTrue();
		});
	}

	/**
	 * 11. A second process started with the leader's node id (a misconfigured
	 * {@code node-id}): it finds the id in use, takes no part and never believes it
	 * leads, while the leader keeps its term; its graceful stop leaves the leader's
	 * candidacy and lease alone.
	 */
	@Test
	@Order(12)
	void secondProcessWithTheLeadersNodeIdTakesNoPart() throws Exception {
		scenario("11. a second process started with the leader's node id", 3, (scenario, leader) -> {
			long term = currentTerm();
			try (SampleNode duplicate = cluster.startUnmanaged(leader.id(), leader.id() + "-duplicate")) {
				await("the duplicate reports its node id in use").atMost(Duration.ofMillis(R + SLACK))
					.pollInterval(Duration.ofMillis(50))
					.until(() -> duplicate.election().path("nodeIdInUseElsewhere").asBoolean());
				Duration watched = Duration.ofMillis(L + 2 * R);
				await("for L + 2 R the duplicate never leads and the leader keeps term " + term).during(watched)
					.atMost(watched.plusSeconds(5))
					.pollInterval(Duration.ofMillis(50))
					.until(() -> !duplicate.believesItLeads() && leader.believesItLeads() && currentTerm() == term);
				assertThat(duplicate.log().contains("is in use by another running instance"))
					.as("the duplicate logs that its node id is in use")
					.isTrue();
				duplicate.terminate();
			}
			Duration watched = Duration.ofMillis(2 * R);
			await("after the duplicate stopped, the leader keeps term " + term).during(watched)
				.atMost(watched.plusSeconds(5))
				.pollInterval(Duration.ofMillis(50))
				.until(() -> leader.believesItLeads() && currentTerm() == term
						&& leader.election().path("candidates").findValuesAsString("nodeId").contains(leader.id()));
			scenario.detail("the duplicate of " + leader.id() + " took no part; term " + term + " unchanged");
		});
	}

	/**
	 * 12. A forced hand-over of one election while its leader keeps leading the others:
	 * the leader of {@code default} first leads every other election too, so that each of
	 * its heartbeat rounds renews them all in one batched statement; then {@code default}
	 * is handed to another node. Only {@code default} moves (within about 2 R, checked by
	 * the job's first run on the target, with no overlap and no stale commit like every
	 * scenario); the other elections keep their leader and term, and its renewal of them
	 * (the refresh of its session) goes on through the hand-over and after it.
	 */
	@Test
	@Order(13)
	void forcedHandOverOfOneElectionLeavesTheOthersAlone() throws Exception {
		scenario("12. forced hand-over of one election while the leader's renewal of the others goes on", 3,
				(scenario, leader) -> {
					for (String election : SampleNode.OTHER_ELECTIONS) {
						if (!leader.id().equals(database.leases().get(election).leaderId())) {
							leader.forceLeader(election, leader.id());
						}
					}
					await(leader.id() + " leads every election").atMost(Duration.ofMillis(2 * R + SLACK))
						.pollInterval(Duration.ofMillis(50))
						.ignoreExceptions()
						.until(() -> SampleNode.OTHER_ELECTIONS.stream()
							.allMatch((election) -> leader.believesItLeads(election)
									&& leader.id().equals(database.leases().get(election).leaderId())));
					Map<String, LeaseMonitor.Sighting> before = database.leases();
					Map<String, Double> transitionsBefore = otherElectionsTransitions(leader);
					SampleNode target = cluster.others(leader).get(0);
					long requestedAt = database.now();
					leader.forceLeader(target.id());
					awaitFailover(scenario, "I6 a forced hand-over takes at most about 2 R", "hand-over", requestedAt,
							(run) -> run.nodeId().equals(target.id()), 2 * R + SLACK);
					long movedAt = database.now();
					// Renewals by the old leader after the hand-over: its batch went on
					// without default.
					await("two renewals of every other election by " + leader.id() + " after the hand-over")
						.atMost(Duration.ofMillis(3 * R + SLACK))
						.pollInterval(Duration.ofMillis(50))
						.until(() -> SampleNode.OTHER_ELECTIONS.stream()
							.allMatch((election) -> database.leases().get(election).renewedAt() > movedAt + R));
					Map<String, LeaseMonitor.Sighting> after = database.leases();
					for (String election : SampleNode.OTHER_ELECTIONS) {
						LeaseMonitor.Sighting was = before.get(election);
						LeaseMonitor.Sighting is = after.get(election);
						assertThat(is.leaderId()).as("election " + election + " keeps its leader")
							.isEqualTo(leader.id());
						assertThat(is.term()).as("election " + election + " keeps its term").isEqualTo(was.term());
						assertThat(is.expiresAt()).as("election " + election + " has a live lease")
							.isGreaterThan(is.seenAt());
						assertThat(leader.believesItLeads(election))
							.as(leader.id() + " still believes it leads " + election)
							.isTrue();
					}
					assertThat(otherElectionsTransitions(leader))
						.as("no transition of the other elections on " + leader.id() + " (leader.election.transitions)")
						.isEqualTo(transitionsBefore);
					assertThat(after.get(FaultDatabase.ELECTION).leaderId()).as("default moved to the target")
						.isEqualTo(target.id());
					assertThat(leader.believesItLeads()).as(leader.id() + " no longer believes it leads default")
						.isFalse();
					assertThat(scenario.transitions(leader)).as("the old leader logs the hand-over of default")
						.anyMatch((transition) -> !transition.granted() && transition.reason().equals("HANDED_OVER"));
					scenario.detail(SampleNode.OTHER_ELECTIONS + " kept leader " + leader.id() + " and their terms; "
							+ "default handed to " + target.id());
				});
	}

	/**
	 * 14. The database frozen for every node (every proxy black-holes both ways and
	 * closes nothing, as a server stopped by {@code SIGSTOP}) for a little more than a
	 * lease, with the leader's application pool exhausted meanwhile by two
	 * {@code SELECT SLEEP}. While it lasts, the test asks every node for
	 * {@code GET /actuator/leader}, {@code /actuator/leader/default} and
	 * {@code /actuator/health} over and over and times each answer: the endpoint answers
	 * within {@link #LEADER_ENDPOINT_BOUND}, the whole health (with the sample's bounded
	 * {@code db} indicator) within {@link #HEALTH_BOUND}, on the node whose pool is
	 * exhausted too; once a node's belief has ended it says {@code thisNodeLeads: false},
	 * and it shows {@code databaseUnreachableFor}. Nobody believes it leads meanwhile;
	 * one leader and the job again after the freeze.
	 */
	@Test
	@Order(14)
	void endpointAndHealthAnswerInTimeWhileTheDatabaseIsFrozen() throws Exception {
		scenario("14. database frozen for every node for L + 2 s, the leader's application pool exhausted", 3,
				(scenario, leader) -> {
					List<SampleNode> nodes = cluster.live();
					long marksFrom = leader.log().mark();
					long frozenFor = L + 2000;
					List<EndpointWatch.Answer> answers;
					long frozenAt;
					NodeLog.Transition revoked;
					List<SampleNode> believersWhileFrozen;
					try (EndpointWatch watch = new EndpointWatch(nodes, ALL_ENDPOINTS)) {
						// The sleeps end at the server before the freeze does; their
						// answers come with the thaw.
						leader.holdApplicationConnections(SampleNode.POOL_SIZE, (int) (frozenFor / 1000));
						await("the application pool of " + leader.id() + " exhausted").atMost(Duration.ofSeconds(5))
							.pollInterval(Duration.ofMillis(50))
							.until(() -> leader.meter("hikaricp.connections.active") == SampleNode.POOL_SIZE);
						frozenAt = database.now();
						nodes.forEach((node) -> node.proxy().cut(Outage.BLACKHOLE));
						revoked = awaitRevocation(leader, marksFrom, Duration.ofMillis(L));
						// the freeze lasts
						sleep(Duration.ofMillis(Math.max(0, frozenAt + frozenFor - database.now())));
						believersWhileFrozen = cluster.believers();
						// before the thaw: every answer counted came during the freeze
						answers = watch.stop();
					}
					LeaseMonitor.Sighting lastLease = cluster.monitor().latest().orElseThrow();
					long thawedAt = database.now();
					nodes.forEach((node) -> node.proxy().restore());
					JobRuns.Run first = assertNobodyLedUntilRecovery(scenario, nodes, revoked, lastLease,
							believersWhileFrozen, thawedAt);
					assertThat(first.startedAt() - thawedAt).as("the job runs again within 2 R + 1 s after the thaw")
						.isLessThanOrEqualTo(2 * R + SLACK);
					for (SampleNode node : nodes) {
						long beliefEnded = (node == leader) ? revoked.atMillis() : frozenAt;
						assertEndpointsDuringOutage(scenario, node, answers, frozenAt, beliefEnded);
					}
				});
	}

	/**
	 * 15. Only the leader cut off from the database, both ways, its connections
	 * black-holed rather than closed, for two leases: it stops believing before its lease
	 * can expire at the database, another node takes over within L + R + 1 s as from a
	 * crashed leader, and nothing of the old term commits; the cut-off node's endpoint
	 * and health answer within their bounds throughout with its own view. When the path
	 * returns it rejoins as a follower, and a forced hand-over back to it makes its job
	 * run again.
	 */
	@Test
	@Order(15)
	void leaderCutOffAloneStepsDownAndRejoinsAsFollower() throws Exception {
		scenario("15. only the leader cut off from the database (black-holed both ways) for 2 L", 3,
				(scenario, leader) -> {
					long term = currentTerm();
					long marksFrom = leader.log().mark();
					List<EndpointWatch.Answer> answers;
					long cutAt;
					NodeLog.Transition revoked;
					JobRuns.Run successor;
					try (EndpointWatch watch = new EndpointWatch(cluster.live(), ALL_ENDPOINTS)) {
						cutAt = database.now();
						leader.proxy().cut(Outage.BLACKHOLE);
						revoked = awaitRevocation(leader, marksFrom, Duration.ofMillis(L));
						successor = awaitFailover(scenario,
								"a leader cut off from the database is replaced within L + R + 1 s",
								"first run of a successor", cutAt, (run) -> !run.nodeId().equals(leader.id()),
								L + R + SLACK);
						// the cut lasts
						sleep(Duration.ofMillis(Math.max(0, cutAt + 2 * L - database.now())));
						answers = watch.stop();
					}
					long restoredAt = database.now();
					leader.proxy().restore();
					assertStepsDownBeforeLeaseEnds(leader, revoked, term, cutAt);
					assertEndpointsDuringOutage(scenario, leader, answers, cutAt, revoked.atMillis());
					for (SampleNode other : cluster.others(leader)) {
						Predicate<EndpointWatch.Answer> fromOther = (answer) -> answer.nodeId().equals(other.id());
						for (String path : ALL_ENDPOINTS) {
							Duration bound = path.equals(EndpointWatch.HEALTH) ? HEALTH_BOUND : LEADER_ENDPOINT_BOUND;
							assertThat(EndpointWatch.of(answers, path, fromOther))
								.as("%s, still connected, answers GET %s within %d ms", other.id(), path,
										bound.toMillis())
								.isNotEmpty()
								.allMatch((answer) -> answer.answeredWithin(bound));
						}
						List<EndpointWatch.Answer> afterTakeOver = EndpointWatch.of(answers, EndpointWatch.ELECTION,
								fromOther.and((answer) -> answer.sentAt() > successor.startedAt()));
						assertThat(afterTakeOver)
							.as("%s, still connected, shows a fresh view naming the new leader %s", other.id(),
									successor.nodeId())
							.isNotEmpty()
							.allMatch((answer) -> !answer.election().path("stale").asBoolean(true)
									&& successor.nodeId().equals(answer.election().path("leader").asString("")));
					}
					assertRejoinsAsFollowerAndLeadsWhenForced(scenario, leader, restoredAt);
					scenario.detail(leader.id() + " stopped believing " + (revoked.atMillis() - cutAt)
							+ " ms after the cut (" + revoked.reason() + ")");
				});
	}

	/**
	 * 16. A half-open connection during a fenced run: the leader's path is black-holed
	 * the moment its job's fence reached the database, so the fence's answer never comes
	 * and no connection is closed (a host that vanished), for two leases. The fenced
	 * connection's network timeout (the hold limit, the lease rounded up to seconds)
	 * gives the job's thread an exception within about that limit, instead of after the
	 * operating system's retransmissions; the server drops the stalled session, so
	 * another node takes over as in 2.; nothing of the stale term commits. After the path
	 * returns and a forced hand-over back, the job runs on that node again.
	 */
	@Test
	@Order(16)
	void halfOpenConnectionInsideAFencedRunFailsTheJobWithinTheHoldLimit() throws Exception {
		scenario("16. half-open connection: the leader's path black-holed inside a fenced run for 2 L", 3,
				(scenario, leader) -> {
					long term = currentTerm();
					long marksFrom = leader.log().mark();
					AtomicLong cutAt = new AtomicLong();
					AtomicLong cutMark = new AtomicLong();
					leader.proxy().onStatement("LOCK IN SHARE MODE", () -> {
						leader.proxy().cut(Outage.BLACKHOLE);
						cutMark.set(leader.log().mark());
						cutAt.set(database.now());
					});
					await("the leader's path cut right after its fence reached the database")
						.atMost(Duration.ofSeconds(5))
						.pollInterval(Duration.ofMillis(20))
						.until(() -> cutAt.get() != 0);
					NodeLog.Line jobFailed = awaitLogLine(leader, cutMark.get(), NodeLog.JOB_RUN_NOT_RECORDED,
							Duration.ofMillis(HOLD_LIMIT + SLACK));
					scenario.failover("the job's thread gets an exception", jobFailed.atMillis() - cutAt.get(),
							HOLD_LIMIT + SLACK);
					NodeLog.Transition revoked = awaitRevocation(leader, marksFrom, Duration.ofMillis(L));
					awaitFailover(scenario,
							"I5 a leader whose fenced connection went half-open is replaced within L + R + 1 s",
							"take-over", cutAt.get(), (run) -> !run.nodeId().equals(leader.id()), L + R + SLACK);
					// the cut lasts
					sleep(Duration.ofMillis(Math.max(0, cutAt.get() + 2 * L - database.now())));
					long restoredAt = database.now();
					leader.proxy().restore();
					assertThat(jobFailed.atMillis() - cutAt.get())
						.as("the job's thread gets an exception within about the fence's hold limit (%d ms) of the "
								+ "connection going half-open: %s", HOLD_LIMIT, jobFailed.text())
						.isLessThanOrEqualTo(HOLD_LIMIT + SLACK);
					assertStepsDownBeforeLeaseEnds(leader, revoked, term, cutAt.get());
					assertRejoinsAsFollowerAndLeadsWhenForced(scenario, leader, restoredAt);
					List<JobRuns.Run> stale = JobRuns.since(database, cutAt.get())
						.stream()
						.filter((run) -> run.nodeId().equals(leader.id()) && run.term() == term)
						.toList();
					assertThat(stale)
						.as("I5 nothing of the stale term %d commits, not even after the path returned", term)
						.isEmpty();
					String reason = jobFailed.text().substring(jobFailed.text().lastIndexOf("; ") + 2);
					scenario.detail(leader.id() + "'s job thread: " + NodeLog.JOB_RUN_NOT_RECORDED
							+ "the database did not answer (" + reason + ")");
				});
	}

	/**
	 * After every node's path to the database was cut and has been restored: the leader
	 * stopped believing before its lease could expire at the database (I2), nobody
	 * believed it led or was granted leadership during the outage (I2, I3), and exactly
	 * one leader within 2 R plus 1 s for reconnecting.
	 * @param revoked the leader's revocation
	 * @param lastLease the last lease seen before the restore
	 * @param believersDuringOutage who believed it led just before the restore
	 * @param restoredAt database time of the restore
	 * @return the first job run after the restore
	 */
	private JobRuns.Run assertNobodyLedUntilRecovery(Scenario scenario, List<SampleNode> nodes,
			NodeLog.Transition revoked, LeaseMonitor.Sighting lastLease, List<SampleNode> believersDuringOutage,
			long restoredAt) {
		long recovered = awaitExactlyOneBeliever(Duration.ofMillis(2 * R + SLACK)) - restoredAt;
		scenario.failover("one leader after the network is restored", recovered, 2 * R + SLACK);
		JobRuns.Run first = awaitFirstRun("a job run after the network is restored", restoredAt, (run) -> true,
				Duration.ofMillis(2 * R + SLACK));
		scenario.failover("first job run after the restore", first.startedAt() - restoredAt, 2 * R + SLACK);
		assertThat(revoked.atMillis())
			.as("I2 the leader stops believing before its lease could expire at the database (%d)",
					lastLease.expiresAt())
			.isLessThan(lastLease.expiresAt());
		assertThat(believersDuringOutage).as("I2 no node believes it leads while the database is unreachable")
			.isEmpty();
		for (SampleNode node : nodes) {
			assertThat(scenario.transitions(node))
				.as("I3 no node is granted leadership while the database is unreachable")
				.noneMatch((transition) -> transition.granted() && transition.atMillis() < restoredAt);
		}
		assertThat(recovered).as("exactly one leader within 2 R (+1 s for reconnecting) after the restore")
			.isLessThanOrEqualTo(2 * R + SLACK);
		return first;
	}

	/**
	 * Check a node's timed answers during an outage: every answer within its bound, and
	 * once the outage has lasted L − G (by then the heartbeat has failed, and the belief
	 * of a leader has ended) each shows the node's own view: not leading, database
	 * unreachable.
	 * @param node the node
	 * @param answers the answers of all nodes
	 * @param outageFrom database time the outage began
	 * @param beliefEnded when the node's belief ended (the outage's start for a follower)
	 */
	private void assertEndpointsDuringOutage(Scenario scenario, SampleNode node, List<EndpointWatch.Answer> answers,
			long outageFrom, long beliefEnded) {
		Predicate<EndpointWatch.Answer> during = (answer) -> answer.nodeId().equals(node.id())
				&& answer.sentAt() + answer.millis() >= outageFrom;
		Predicate<EndpointWatch.Answer> settled = during.and((answer) -> answer.sentAt() >= outageFrom + L - G);
		StringBuilder timings = new StringBuilder(node.id()).append(" while cut off, slowest");
		for (String path : ALL_ENDPOINTS) {
			Duration bound = path.equals(EndpointWatch.HEALTH) ? HEALTH_BOUND : LEADER_ENDPOINT_BOUND;
			List<EndpointWatch.Answer> all = EndpointWatch.of(answers, path, during);
			List<EndpointWatch.Answer> late = EndpointWatch.of(answers, path, settled);
			timings.append(' ')
				.append(path)
				.append(' ')
				.append(EndpointWatch.slowest(all))
				.append(" ms (")
				.append(all.size())
				.append(')');
			assertThat(all).as("%s answered GET %s during the outage", node.id(), path).isNotEmpty();
			assertThat(all).as("%s answers GET %s within %d ms during the outage", node.id(), path, bound.toMillis())
				.allMatch((answer) -> answer.answeredWithin(bound));
			assertThat(late).as("%s answered GET %s after the outage lasted L - G", node.id(), path).isNotEmpty();
			assertThat(late)
				.as("%s shows databaseUnreachableFor in GET %s once the outage lasted L - G", node.id(), path)
				.allMatch((answer) -> answer.databaseUnreachableFor().isPresent());
			assertThat(EndpointWatch.of(answers, path, during.and((answer) -> answer.sentAt() > beliefEnded)))
				.as("%s says it does not lead in GET %s once its belief ended", node.id(), path)
				.allMatch((answer) -> path.equals(EndpointWatch.HEALTH)
						? answer.election().path("details").path("role").asString("").equals("follower")
						: !answer.election().path("thisNodeLeads").asBoolean(true));
		}
		scenario.detail(timings.toString());
	}

	/**
	 * Check that a node stopped believing before the lease of its term could expire at
	 * the database, and before anyone took over.
	 */
	private void assertStepsDownBeforeLeaseEnds(SampleNode node, NodeLog.Transition revoked, long term,
			long fromDbMillis) {
		long lastExpiry = cluster.monitor()
			.since(fromDbMillis - 2 * R)
			.stream()
			.filter((sighting) -> sighting.term() == term)
			.mapToLong(LeaseMonitor.Sighting::expiresAt)
			.max()
			.orElseThrow();
		assertThat(revoked.atMillis())
			.as("I2 %s stops believing before its lease could expire at the database (%d)", node.id(), lastExpiry)
			.isLessThan(lastExpiry);
		assertStepsDownBeforeTakeOver(node, List.of(revoked), term, fromDbMillis);
	}

	/**
	 * Once a node's path to the database is back: it reports itself a follower of another
	 * leader with a fresh view, and a forced hand-over to it makes its job run (it is not
	 * stuck).
	 */
	private void assertRejoinsAsFollowerAndLeadsWhenForced(Scenario scenario, SampleNode node, long restoredAt) {
		await(node.id() + " rejoins as a follower with a fresh view")
			.atMost(Duration.ofMillis(2 * R + SLACK).plus(OBSERVE_BEYOND_BOUND))
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.until(() -> {
				JsonNode election = node.election();
				String leaderId = election.path("leader").asString("");
				return !election.path("stale").asBoolean(true) && !election.path("thisNodeLeads").asBoolean(true)
						&& election.path("databaseUnreachableFor").isMissingNode() && !leaderId.isEmpty()
						&& !leaderId.equals(node.id())
						&& election.path("candidates").findValuesAsString("nodeId").contains(node.id());
			});
		long rejoined = database.now() - restoredAt;
		scenario.failover("rejoined as a follower", rejoined, 2 * R + SLACK);
		assertThat(rejoined).as("%s rejoins as a follower within 2 R + 1 s of the path returning", node.id())
			.isLessThanOrEqualTo(2 * R + SLACK);
		long requestedAt = database.now();
		node.forceLeader(node.id());
		awaitFailover(scenario, "I6 after a forced hand-over back, the node that was cut off runs its job again",
				"job run after the hand-over back", requestedAt, (run) -> run.nodeId().equals(node.id()),
				2 * R + SLACK);
	}

	private NodeLog.Line awaitLogLine(SampleNode node, long logMark, String text, Duration bound) {
		NodeLog.Line[] found = new NodeLog.Line[1];
		await(node.id() + " logs " + text).atMost(bound.plus(OBSERVE_BEYOND_BOUND))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				Optional<NodeLog.Line> line = node.log().firstLine(logMark, text);
				line.ifPresent((value) -> found[0] = value);
				return line.isPresent();
			});
		return found[0];
	}

	private static Map<String, Double> otherElectionsTransitions(SampleNode node) {
		Map<String, Double> transitions = new TreeMap<>();
		for (String election : SampleNode.OTHER_ELECTIONS) {
			transitions.put(election, node.meter("leader.election.transitions", "election:" + election));
		}
		return transitions;
	}

	private void scenario(String title, int minimumNodes, Scenario.Body body) throws Exception {
		Scenario.run(title, cluster, minimumNodes, body);
	}

	/**
	 * Wait for the first job run that shows a new leader at work, record the time it took
	 * and check it against its bound.
	 * @param property the property the bound expresses, for the failure message
	 * @param what what is measured, for the report
	 * @param fromDbMillis database time of the fault or request
	 * @param which which runs count
	 * @param boundMillis the bound
	 * @return the first run
	 */
	private JobRuns.Run awaitFailover(Scenario scenario, String property, String what, long fromDbMillis,
			Predicate<JobRuns.Run> which, long boundMillis) {
		JobRuns.Run first = awaitFirstRun(what, fromDbMillis, which, Duration.ofMillis(boundMillis));
		scenario.failover(what + " (" + first.nodeId() + ")", first.startedAt() - fromDbMillis, boundMillis);
		assertThat(first.startedAt() - fromDbMillis).as(property).isLessThanOrEqualTo(boundMillis);
		return first;
	}

	private JobRuns.Run awaitFirstRun(String what, long fromDbMillis, Predicate<JobRuns.Run> which, Duration bound) {
		JobRuns.Run[] found = new JobRuns.Run[1];
		await(what).atMost(bound.plus(OBSERVE_BEYOND_BOUND)).pollInterval(Duration.ofMillis(50)).until(() -> {
			Optional<JobRuns.Run> run = JobRuns.first(database, fromDbMillis, which);
			run.ifPresent((value) -> found[0] = value);
			return run.isPresent();
		});
		return found[0];
	}

	private NodeLog.Transition awaitRevocation(SampleNode node, long logMark, Duration bound) {
		NodeLog.Transition[] found = new NodeLog.Transition[1];
		await(node.id() + " logs the end of its leadership").atMost(bound.plus(OBSERVE_BEYOND_BOUND))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				Optional<NodeLog.Transition> revoked = node.log()
					.transitions(logMark)
					.stream()
					.filter((transition) -> !transition.granted())
					.findFirst();
				revoked.ifPresent((value) -> found[0] = value);
				return revoked.isPresent();
			});
		return found[0];
	}

	/**
	 * Wait until exactly one live node believes it leads.
	 * @param bound how long it may take
	 * @return database time when that was first seen
	 */
	private long awaitExactlyOneBeliever(Duration bound) {
		long[] seenAt = new long[1];
		await("exactly one node believes it leads").atMost(bound.plus(OBSERVE_BEYOND_BOUND))
			.pollInterval(Duration.ofMillis(50))
			.ignoreExceptions()
			.until(() -> {
				if (cluster.believers().size() == 1) {
					seenAt[0] = database.now();
					return true;
				}
				return false;
			});
		return seenAt[0];
	}

	private static double sumOfTransitions() {
		return cluster.live().stream().mapToDouble(SampleNode::transitions).sum();
	}

	private static long currentTerm() {
		return cluster.monitor().latest().orElseThrow().term();
	}

	/**
	 * @return every version of the lease seen since the scenario began, with its term
	 */
	private static List<LeaseMonitor.Sighting> termsSince(Scenario scenario) {
		return cluster.monitor().since(scenario.startedAt());
	}

	private static boolean renewedBy(SampleNode node, long afterDbMillis) {
		return renewalTimeAfter(node, afterDbMillis) > 0;
	}

	private static long renewalTimeAfter(SampleNode node, long afterDbMillis) {
		return cluster.monitor()
			.since(afterDbMillis - 2 * R)
			.stream()
			.filter((sighting) -> node.id().equals(sighting.leaderId()) && sighting.renewedAt() > afterDbMillis)
			.mapToLong(LeaseMonitor.Sighting::renewedAt)
			.min()
			.orElse(0);
	}

	/** Let real time pass: the fault lasts this long. */
	private static void sleep(Duration duration) throws InterruptedException {
		Thread.sleep(duration.toMillis());
	}

}
