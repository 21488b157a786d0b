package io.github.dbleader.election;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The election state machine with fake clocks and an in-memory repository: no threads, no
 * sleeps. Lease L = 10s, renew interval R = 2s, guard G = 2s, so a belief lasts 8s from
 * the send of the last successful statement.
 */
class ElectionLoopTests {

	private static final Duration L = Duration.ofSeconds(10);

	private static final Duration R = Duration.ofSeconds(2);

	private static final Duration BELIEF = Duration.ofSeconds(8);

	private static final Duration TICK = Duration.ofMillis(100);

	private final ElectionSettings settings = ElectionSettings.of(L, R);

	private final InMemoryLeaseDatabase repository = new InMemoryLeaseDatabase();

	/** Every node of the test, so that time passes for all of them alike. */
	private final List<Node> nodes = new ArrayList<>();

	private final Node a = new Node("a");

	private final Node b = new Node("b");

	@Test
	void firstNodeAcquiresAndOthersFollow() {
		this.a.tick();
		this.b.tick();
		assertThat(this.a.loop.isLeader()).isTrue();
		assertThat(this.b.loop.isLeader()).isFalse();
		long term = this.repository.row("e").term;
		assertThat(this.a.loop.leaderTerm()).isEqualTo(term);
		assertThat(this.b.loop.leaderTerm()).isEqualTo(-1);
		assertThat(this.a.listener.events).containsExactly("changed null -> a", "granted a " + term);
		assertThat(this.b.listener.events).containsExactly("changed null -> a");
	}

	@Test
	void beliefLastsLeaseMinusGuardFromTheSendOfTheLastRenewal() {
		this.a.tick();
		elapse(R);
		this.a.tick();
		elapse(BELIEF.minus(Duration.ofNanos(1)));
		assertThat(this.a.loop.isLeader()).isTrue();
		elapse(Duration.ofNanos(1));
		assertThat(this.a.loop.isLeader()).isFalse();
		assertThat(this.a.loop.leaderTerm()).isEqualTo(-1);
	}

	@Test
	void slowRenewalCountsFromWhenItWasSentNotFromWhenItReturned() {
		this.a.tick();
		elapse(R);
		// The renewal takes 1.5s to come back (slow database, still within its timeout).
		this.repository.setDuringStatement(() -> elapse(Duration.ofMillis(1500)));
		this.a.tick();
		this.repository.setDuringStatement(() -> {
		});
		// The candidate heartbeat went first; 1.5s for the renewal have passed since it
		// was sent.
		elapse(BELIEF.minus(Duration.ofMillis(1500)).minus(Duration.ofNanos(1)));
		assertThat(this.a.loop.isLeader()).isTrue();
		elapse(Duration.ofNanos(1));
		assertThat(this.a.loop.isLeader()).isFalse();
	}

	@Test
	void renewalKeepsLeadershipWithTheSameTermAndNoEvents() {
		this.a.tick();
		long term = this.a.loop.leaderTerm();
		for (int i = 0; i < 20; i++) {
			elapse(R);
			this.a.tick();
			this.b.tick();
			assertThat(this.a.loop.isLeader()).isTrue();
			assertThat(this.b.loop.isLeader()).isFalse();
		}
		assertThat(this.a.loop.leaderTerm()).isEqualTo(term);
		assertThat(this.a.listener.grantsAndRevocations()).containsExactly("granted a " + term);
	}

	@Test
	void followerTakesOverOnlyAfterSeeingTheRowUnchangedForAWholeLeaseOnItsOwnClock() {
		this.a.tick();
		this.b.tick();
		// a dies; the database clock jumps an hour ahead (e.g. a fail-over to a server
		// with another clock): the database says "expired" at once, but b must still wait
		// a lease.
		this.repository.advanceDatabaseClock(Duration.ofHours(1));
		Duration waited = Duration.ZERO;
		while (!this.b.loop.isLeader()) {
			elapseNodes(R);
			waited = waited.plus(R);
			this.b.tick();
			assertThat(waited).isLessThanOrEqualTo(L.plus(R));
		}
		assertThat(waited).isGreaterThanOrEqualTo(L);
		assertThat(this.repository.statements().indexOf("takeOverAll")).isPositive();
	}

	@Test
	void followerDoesNotTakeOverWhileTheDatabaseSaysTheLeaseIsValid() {
		this.a.tick();
		this.b.tick();
		// a dies; b's clock runs fast (a whole lease passes for b) but the database clock
		// has not reached the expiry yet.
		this.b.clock.advance(L.multipliedBy(3));
		this.b.tick();
		assertThat(this.b.loop.isLeader()).isFalse();
		assertThat(this.repository.statements()).doesNotContain("takeOverAll");
	}

	@Test
	void guardEndsTheOldBeliefBeforeAnyoneElseCanBelieve() {
		this.a.tick();
		this.b.tick();
		long lastRenewalSent = 0;
		long now = 0;
		long aStopped = -1;
		long bStarted = -1;
		// a renews for a while, then its heartbeat stops (process dead or stuck) while
		// its belief runs out on its own; b polls every renew interval.
		for (int step = 0; step < 400; step++) {
			if (step % 20 == 0) {
				if (step <= 100) {
					lastRenewalSent = now;
					this.a.tick();
				}
				this.b.tick();
			}
			assertThat(this.a.loop.isLeader() && this.b.loop.isLeader()).as("two believers at %d ms", now).isFalse();
			if (aStopped < 0 && !this.a.loop.isLeader()) {
				aStopped = now;
			}
			if (bStarted < 0 && this.b.loop.isLeader()) {
				bStarted = now;
			}
			elapse(TICK);
			now += TICK.toMillis();
		}
		assertThat(aStopped).isEqualTo(lastRenewalSent + BELIEF.toMillis());
		assertThat(bStarted).isGreaterThanOrEqualTo(lastRenewalSent + L.toMillis());
		assertThat(bStarted - aStopped).isGreaterThanOrEqualTo(Duration.ofSeconds(2).toMillis());
	}

	@Test
	void failedRenewalDoesNotExtendTheBeliefAndTheWatchdogRevokesAtTheDeadline() {
		this.a.tick();
		long term = this.a.loop.leaderTerm();
		this.repository.setUnreachable(true);
		for (int i = 0; i < 3; i++) {
			elapse(R);
			this.a.tick();
			this.a.loop.checkDeadline();
			assertThat(this.a.loop.isLeader()).isTrue();
		}
		elapse(Duration.ofSeconds(2));
		assertThat(this.a.loop.isLeader()).isFalse();
		assertThat(this.a.loop.databaseReachable()).isFalse();
		this.a.loop.checkDeadline();
		assertThat(this.a.listener.grantsAndRevocations()).containsExactly("granted a " + term,
				"revoked a " + term + " DATABASE_UNREACHABLE");
	}

	@Test
	void healthNeverReportsTheDatabaseUnreachableWhileThisNodeStillBelievesItLeads() {
		// Health reads databaseReachable(), the endpoint and the jobs isLeader(): an
		// operator
		// must never see a leader whose database is "unreachable". Outages start at every
		// offset within a renew interval and are observed every tick until belief ends.
		for (long offsetMillis = 0; offsetMillis < R.toMillis(); offsetMillis += TICK.toMillis()) {
			ElectionLoopTests test = new ElectionLoopTests();
			test.a.tick();
			test.elapse(Duration.ofMillis(offsetMillis));
			test.a.tick();
			test.repository.setUnreachable(true);
			Duration sinceOutage = Duration.ZERO;
			while (test.a.loop.isLeader()) {
				assertThat(test.a.loop.databaseReachable())
					.as("reachable while believing, outage at +%d ms, %s into it", offsetMillis, sinceOutage)
					.isTrue();
				test.elapse(TICK);
				sinceOutage = sinceOutage.plus(TICK);
				if (sinceOutage.toMillis() % R.toMillis() == 0) {
					test.a.tick();
				}
				test.a.loop.checkDeadline();
			}
			assertThat(sinceOutage).as("belief ended within a lease").isLessThanOrEqualTo(BELIEF);
		}
	}

	@Test
	void renewalWhoseAnswerIsLostDoesNotCount() {
		this.a.tick();
		// From now on every refresh of the session reaches the database, but its answer
		// is lost.
		this.repository.loseAnswersOf("heartbeat");
		elapse(R);
		this.a.tick();
		assertThat(this.repository.find("e").orElseThrow().renewedAt()).as("the database applied the refresh")
			.isEqualTo(java.time.Instant.ofEpochMilli(1_700_000_000_000L + R.toMillis()));
		// The belief still ends 8s after the first acquisition, not after the lost
		// renewal.
		elapse(BELIEF.minus(R));
		assertThat(this.a.loop.isLeader()).isFalse();
	}

	@Test
	void shortOutageChangesNothing() {
		this.a.tick();
		this.b.tick();
		long term = this.a.loop.leaderTerm();
		this.repository.setUnreachable(true);
		for (int i = 0; i < 2; i++) {
			elapse(R);
			this.a.tick();
			this.b.tick();
			this.a.loop.checkDeadline();
			assertThat(this.a.loop.isLeader()).isTrue();
		}
		this.repository.setUnreachable(false);
		for (int i = 0; i < 10; i++) {
			elapse(R);
			this.a.tick();
			this.b.tick();
			this.a.loop.checkDeadline();
			assertThat(this.a.loop.isLeader()).isTrue();
			assertThat(this.b.loop.isLeader()).isFalse();
		}
		assertThat(this.a.loop.leaderTerm()).isEqualTo(term);
		assertThat(this.a.listener.grantsAndRevocations()).containsExactly("granted a " + term);
	}

	@Test
	void forcedHandoverStepsDownBeforeTheTargetBelieves() {
		this.a.tick();
		this.b.tick();
		long oldTerm = this.a.loop.leaderTerm();
		this.a.election.forceLeader("b");
		assertThat(this.a.loop.isLeader()).as("the request alone changes nothing yet").isTrue();
		elapse(R);
		this.a.tick();
		assertThat(this.a.loop.isLeader()).isFalse();
		assertThat(this.b.loop.isLeader()).isFalse();
		assertThat(this.repository.row("e").leaderId).isEqualTo("b");
		this.b.tick();
		assertThat(this.b.loop.isLeader()).isTrue();
		assertThat(this.b.loop.leaderTerm()).isGreaterThan(oldTerm);
		assertThat(this.a.listener.grantsAndRevocations()).containsExactly("granted a " + oldTerm,
				"revoked a " + oldTerm + " HANDED_OVER");
		elapse(R);
		this.a.tick();
		this.b.tick();
		assertThat(this.a.loop.isLeader()).isFalse();
		assertThat(this.b.loop.isLeader()).isTrue();
	}

	@Test
	void forcingLeadershipToANodeThatIsNotALiveCandidateChangesNothing() {
		this.a.tick();
		this.b.tick();
		assertThatExceptionOfType(UnknownCandidateException.class).isThrownBy(() -> this.a.election.forceLeader("x"))
			.withMessageContaining("'x'");
		// b was seen, but not within the last lease.
		elapse(L);
		this.a.tick();
		assertThatExceptionOfType(UnknownCandidateException.class).isThrownBy(() -> this.a.election.forceLeader("b"));
		assertThat(this.repository.statements()).doesNotContain("requestHandover");
		assertThat(this.repository.row("e").handoverTo).isNull();
	}

	@Test
	void forcingLeadershipToTheCurrentLeaderIsANoOp() {
		this.a.tick();
		this.a.election.forceLeader("a");
		assertThat(this.repository.statements()).doesNotContain("requestHandover");
	}

	@Test
	void reelectionLetsAnotherNodeTakeOver() {
		this.a.tick();
		this.b.tick();
		long oldTerm = this.a.loop.leaderTerm();
		assertThat(this.a.election.forceReelection()).isTrue();
		elapse(R);
		this.a.tick();
		assertThat(this.a.loop.isLeader()).isFalse();
		assertThat(this.repository.row("e").leaderId).isNull();
		this.a.tick();
		assertThat(this.a.loop.isLeader()).as("the old leader stays out").isFalse();
		this.b.tick();
		assertThat(this.b.loop.isLeader()).isTrue();
		assertThat(this.b.loop.leaderTerm()).isGreaterThan(oldTerm);
		assertThat(this.a.listener.grantsAndRevocations()).containsExactly("granted a " + oldTerm,
				"revoked a " + oldTerm + " REELECTION");
	}

	@Test
	void reelectionWithoutOtherCandidatesReturnsToTheOldLeaderAfterALease() {
		this.a.tick();
		this.a.election.forceReelection();
		this.a.tick();
		assertThat(this.a.loop.isLeader()).isFalse();
		elapse(L);
		this.a.tick();
		assertThat(this.a.loop.isLeader()).isTrue();
	}

	@Test
	void releaseEndsBeliefAndAnotherNodeTakesOverAtItsNextHeartbeat() {
		this.a.tick();
		this.b.tick();
		long oldTerm = this.a.loop.leaderTerm();
		this.a.election.release();
		assertThat(this.a.loop.isLeader()).isFalse();
		assertThat(this.repository.row("e").leaderId).isNull();
		elapse(R);
		this.b.tick();
		assertThat(this.b.loop.isLeader()).isTrue();
		assertThat(this.b.loop.leaderTerm()).isGreaterThan(oldTerm);
		assertThat(this.a.listener.grantsAndRevocations()).containsExactly("granted a " + oldTerm,
				"revoked a " + oldTerm + " RELEASED");
	}

	@Test
	void pausedLeaderThatResumesAfterATakeOverDoesNotBelieveAgain() {
		this.a.tick();
		this.b.tick();
		long oldTerm = this.a.loop.leaderTerm();
		// a is paused (no ticks, no watchdog) for three leases; b takes over.
		for (int i = 0; i < 15; i++) {
			elapse(R);
			this.b.tick();
		}
		assertThat(this.b.loop.isLeader()).isTrue();
		assertThat(this.a.loop.isLeader()).isFalse();
		this.a.tick();
		assertThat(this.a.loop.isLeader()).isFalse();
		assertThat(this.a.listener.grantsAndRevocations()).containsExactly("granted a " + oldTerm,
				"revoked a " + oldTerm + " EXPIRED");
		assertThatExceptionOfType(NotLeaderException.class).isThrownBy(() -> this.a.election.runFenced((t) -> t));
	}

	@Test
	void databaseFailOverMakesTheLeaderStepDownAndTakeANewTermALeaseAfterItsFirstReadOfTheNewServer() {
		this.a.tick();
		long oldTerm = this.a.loop.leaderTerm();
		this.repository.failOver("server-2");
		elapse(R);
		this.a.tick();
		assertThat(this.a.loop.isLeader()).isFalse();
		assertThat(this.a.listener.grantsAndRevocations()).containsExactly("granted a " + oldTerm,
				"revoked a " + oldTerm + " SERVER_CHANGED");
		// The new server may have lost a newer holder's lease, whose belief ends within a
		// lease of the failover: a waits that long from its first read of the new server.
		elapse(L.minus(Duration.ofMillis(1)));
		this.a.tick();
		assertThat(this.a.loop.isLeader()).isFalse();
		elapse(Duration.ofMillis(1));
		this.a.tick();
		assertThat(this.a.loop.isLeader()).isTrue();
		long newTerm = this.a.loop.leaderTerm();
		assertThat(newTerm).isGreaterThan(oldTerm);
		assertThat(this.a.listener.grantsAndRevocations()).containsExactly("granted a " + oldTerm,
				"revoked a " + oldTerm + " SERVER_CHANGED", "granted a " + newTerm);
	}

	@Test
	void nodeNamedInTheLeaseBelievesOnlyAfterItsOwnStatementSucceedsAndUnderANewTerm() {
		this.a.tick();
		this.b.tick();
		this.a.election.forceLeader("b");
		this.a.tick();
		long handedOverTerm = this.repository.row("e").term;
		assertThat(this.repository.row("e").leaderId).isEqualTo("b");
		// b finds itself named in the lease: that alone is no reason to believe.
		this.repository.setUnreachable(true);
		this.b.tick();
		assertThat(this.b.loop.isLeader()).isFalse();
		this.repository.setUnreachable(false);
		this.b.tick();
		assertThat(this.b.loop.isLeader()).isTrue();
		assertThat(this.b.loop.leaderTerm()).isGreaterThan(handedOverTerm);
	}

	@Test
	void restartAfterACrashUnderTheSameIdWaitsForTheOldInstancesRowAndLease() {
		this.a.tick();
		long oldTerm = this.a.loop.leaderTerm();
		// a crashes; a new process starts with the same node id.
		Node restarted = new Node("a", "a-restarted");
		restarted.tick();
		assertThat(restarted.loop.isLeader()).isFalse();
		assertThat(restarted.election.isNodeIdInUseElsewhere()).isTrue();
		Duration waited = Duration.ZERO;
		while (!restarted.loop.isLeader()) {
			elapse(R);
			waited = waited.plus(R);
			restarted.tick();
			assertThat(waited).isLessThanOrEqualTo(L.multipliedBy(2).plus(R.multipliedBy(2)));
		}
		// A lease for the old row to go stale, then a whole lease of an unchanged lease
		// row.
		assertThat(waited).isGreaterThanOrEqualTo(L.multipliedBy(2));
		assertThat(restarted.election.isNodeIdInUseElsewhere()).isFalse();
		assertThat(restarted.loop.leaderTerm()).isGreaterThan(oldTerm);
		// Fenced work of the earlier process under the old term cannot commit any more.
		assertThatExceptionOfType(NotLeaderException.class)
			.isThrownBy(() -> this.repository.runFenced("e", "a", oldTerm, L, (t) -> t));
	}

	@Test
	void secondInstanceWithTheSameNodeIdTakesNoPartWhileTheFirstRuns() {
		this.a.tick();
		long term = this.a.loop.leaderTerm();
		Node duplicate = new Node("a", "a-duplicate");
		for (int i = 0; i < 20; i++) {
			duplicate.tick();
			assertThat(duplicate.loop.isLeader()).isFalse();
			assertThat(duplicate.election.isNodeIdInUseElsewhere()).isTrue();
			elapse(R);
			this.a.tick();
			assertThat(this.a.loop.leaderTerm()).isEqualTo(term);
		}
		assertThat(duplicate.listener.events).isEmpty();
		assertThat(this.a.election.isNodeIdInUseElsewhere()).isFalse();
		// The duplicate never got past its candidate heartbeat.
		assertThat(this.repository.statements()).doesNotContain("reacquire", "takeOverAll");
		// Stopping the duplicate leaves the running instance's row alone.
		duplicate.release(RevocationReason.SHUTDOWN, false);
		assertThat(this.repository.liveCandidates("e", L)).extracting(Candidate::nodeId).containsExactly("a");
	}

	@Test
	void duplicateNeverTakesTheNodeIdOfARunningInstanceEvenAfterADatabaseClockJump() {
		this.a.tick();
		long firstTerm = this.a.loop.leaderTerm();
		Node duplicate = new Node("a", "a-duplicate");
		duplicate.tick();
		assertThat(duplicate.election.isNodeIdInUseElsewhere()).isTrue();
		// The database clock jumps a lease ahead (a fail-over to a server with another
		// clock): a's row looks stale at once on it, but a keeps refreshing it, and the
		// duplicate takes a node id over only at a version it has seen unchanged for a
		// whole lease on its own clock. Until the node ids watched only the database
		// clock, the duplicate took the id and a stepped down.
		this.repository.advanceDatabaseClock(L);
		for (int step = 0; step < 60; step++) {
			duplicate.tick();
			assertThat(this.a.loop.isLeader() && duplicate.loop.isLeader()).as("two believers at step %d", step)
				.isFalse();
			this.a.tick();
			assertThat(this.a.loop.isLeader() && duplicate.loop.isLeader()).as("two believers at step %d", step)
				.isFalse();
			assertThat(duplicate.loop.isLeader()).as("the duplicate at step %d", step).isFalse();
			elapse(R);
		}
		assertThat(this.a.listener.grantsAndRevocations()).containsExactly("granted a " + firstTerm);
		assertThat(this.a.election.isNodeIdInUseElsewhere()).isFalse();
		assertThat(duplicate.election.isNodeIdInUseElsewhere()).isTrue();
	}

	@Test
	void stoppingLeavesTheCandidatesEvenWhenTheReleaseFails() {
		this.a.tick();
		this.b.tick();
		this.repository.failNext("yield");
		this.a.release(RevocationReason.SHUTDOWN, false);
		assertThat(this.a.loop.isLeader()).isFalse();
		assertThat(this.repository.liveCandidates("e", L)).extracting(Candidate::nodeId).containsExactly("b");
	}

	@Test
	void fencedWorkRunsWithTheTermOfTheCurrentBelief() {
		this.a.tick();
		Long fencedTerm = this.a.election.runFenced((term) -> term);
		assertThat(fencedTerm).isEqualTo(this.a.loop.leaderTerm());
		assertThatExceptionOfType(NotLeaderException.class).isThrownBy(() -> this.b.election.runFenced((t) -> t));
	}

	@Test
	void termStrictlyIncreasesAcrossEveryChange() {
		this.a.tick();
		this.b.tick();
		this.a.election.forceLeader("b");
		this.a.tick();
		this.b.tick();
		this.b.election.forceReelection();
		this.b.tick();
		this.a.tick();
		this.a.election.release();
		this.b.tick();
		this.b.election.release();
		elapse(L);
		this.a.tick();
		assertThat(this.a.loop.isLeader()).isTrue();
		java.util.List<Long> terms = new java.util.ArrayList<>();
		for (String event : mergedGrants()) {
			terms.add(Long.parseLong(event.split(" ")[2]));
		}
		assertThat(terms).hasSize(5).isSorted().doesNotHaveDuplicates();
	}

	@Test
	void takeOverPolicyHoldsAFollowerBackFromFreeLeasesOnly() {
		java.util.concurrent.atomic.AtomicBoolean allowed = new java.util.concurrent.atomic.AtomicBoolean();
		FakeNode held = new FakeNode("held", "held-instance", this.repository, this.settings);
		Election heldElection = held.join("e", (state) -> allowed.get());
		this.a.tick();
		held.tick();
		this.a.election.release();
		// Vacant: the policy keeps the node out while it says no, and lets it in when it
		// says yes.
		held.tick();
		assertThat(heldElection.isLeader()).isFalse();
		assertThat(this.repository.row("e").leaderId).isNull();
		allowed.set(true);
		held.tick();
		assertThat(heldElection.isLeader()).isTrue();
		// A hand-over to the node is no take-over: the policy is not asked.
		allowed.set(false);
		this.a.election.forceLeader("a");
		held.tick();
		this.a.tick();
		assertThat(this.a.election.isLeader()).isTrue();
		this.a.election.forceLeader("held");
		this.a.tick();
		held.tick();
		assertThat(heldElection.isLeader()).isTrue();
	}

	private java.util.List<String> mergedGrants() {
		java.util.List<String> grants = new java.util.ArrayList<>();
		this.a.listener.events.stream().filter((e) -> e.startsWith("granted")).forEach(grants::add);
		this.b.listener.events.stream().filter((e) -> e.startsWith("granted")).forEach(grants::add);
		grants.sort((x, y) -> Long.compare(Long.parseLong(x.split(" ")[2]), Long.parseLong(y.split(" ")[2])));
		return grants;
	}

	private void elapse(Duration duration) {
		elapseNodes(duration);
		this.repository.advanceDatabaseClock(duration);
	}

	private void elapseNodes(Duration duration) {
		this.nodes.forEach((node) -> node.clock.advance(duration));
	}

	private final class Node {

		final FakeNode node;

		final FakeClock clock;

		final RecordingListener listener;

		final ElectionLoop loop;

		final Election election;

		Node(String id) {
			this(id, id + "-instance");
		}

		Node(String id, String instanceId) {
			ElectionLoopTests.this.nodes.add(this);
			this.node = new FakeNode(id, instanceId, ElectionLoopTests.this.repository,
					ElectionLoopTests.this.settings);
			this.clock = this.node.clock;
			this.listener = this.node.listener;
			this.election = this.node.join("e");
			this.loop = this.election.loop();
		}

		/** One heartbeat round of this node. */
		void tick() {
			this.node.tick();
		}

		void release(RevocationReason reason, boolean keepCompeting) {
			this.node.release("e", reason, keepCompeting);
		}

	}

}
