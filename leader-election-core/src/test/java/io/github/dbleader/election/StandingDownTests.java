package io.github.dbleader.election;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ElectionService#standDown()} and {@link ElectionService#campaign()}, on services
 * whose rounds run when the test says, on fake clocks: a node standing down gives up what
 * it leads at once, takes no lease while it stands down, and campaigns again when asked.
 */
class StandingDownTests {

	private static final Duration L = Duration.ofSeconds(10);

	private static final Duration R = Duration.ofSeconds(2);

	private final ElectionSettings settings = ElectionSettings.of(L, R);

	private final InMemoryLeaseDatabase repository = new InMemoryLeaseDatabase();

	private final Node a = new Node("a");

	private final Node b = new Node("b");

	@Test
	void standingDownGivesLeadershipUpAtOnceAndAnotherNodeTakesItOverAtItsNextRound() {
		Election x = this.a.service.election("x");
		this.b.service.election("x");
		this.a.start();
		this.b.start();
		this.a.round();
		assertThat(x.isLeader()).isTrue();
		long term = x.term();
		this.a.service.standDown();
		assertThat(x.isLeader()).isFalse();
		assertThat(this.a.service.isCampaigning()).isFalse();
		assertThat(this.a.listener.grantsAndRevocations()).containsExactly("granted a " + term,
				"revoked a " + term + " STOOD_DOWN");
		// The round that standing down asked for, without waiting for the renew interval.
		this.a.extraRounds();
		assertThat(this.repository.find("x")).hasValueSatisfying((lease) -> assertThat(lease.vacant()).isTrue());
		this.b.round();
		assertThat(this.b.service.findElection("x").isLeader()).isTrue();
		assertThat(this.b.service.findElection("x").term()).isGreaterThan(term);
	}

	@Test
	void aNodeStandingDownTakesNoLeaseAndTakesAnExpiredOneAtOnceWhenItCampaignsAgain() {
		Election x = this.a.service.election("x");
		Election y = this.b.service.election("x");
		this.a.service.election("y");
		this.a.start();
		this.b.start();
		this.b.round();
		assertThat(y.isLeader()).isTrue();
		this.a.service.standDown();
		this.a.extraRounds();
		// b crashes: its lease expires, and a watches it unchanged for longer than a
		// lease.
		for (int i = 0; i < 10; i++) {
			this.a.round();
			assertThat(x.isLeader()).isFalse();
		}
		assertThat(this.repository.find("x"))
			.hasValueSatisfying((lease) -> assertThat(lease.leaderId()).isEqualTo("b"));
		assertThat(this.repository.find("y")).as("no lease created while standing down").isEmpty();
		this.a.service.campaign();
		assertThat(this.a.service.isCampaigning()).isTrue();
		// The round that campaigning again asked for, without waiting for the renew
		// interval.
		this.a.extraRounds();
		assertThat(x.isLeader()).isTrue();
		assertThat(this.a.service.findElection("y").isLeader()).isTrue();
	}

	@Test
	void aNodeStoodDownBeforeStartCampaignsInNoElectionJoinedBeforeOrAfter() {
		this.a.service.election("x");
		this.a.service.standDown();
		this.a.start();
		Election y = this.a.service.election("y");
		this.a.extraRounds();
		this.a.round();
		this.a.round();
		assertThat(this.repository.find("x")).isEmpty();
		assertThat(this.repository.find("y")).isEmpty();
		assertThat(y.candidates()).extracting(Candidate::nodeId).containsExactly("a");
		this.a.service.campaign();
		this.a.extraRounds();
		assertThat(this.a.service.findElection("x").isLeader()).isTrue();
		assertThat(y.isLeader()).isTrue();
	}

	@Test
	void aHandOverToANodeStandingDownIsPassedOnAndTheLeaseTakenByAnother() {
		Election atA = this.a.service.election("x");
		Election atB = this.b.service.election("x");
		handOverFromBToAStandingDown(atB);
		this.a.round();
		assertThat(atA.isLeader()).isFalse();
		assertThat(this.repository.find("x")).hasValueSatisfying((lease) -> assertThat(lease.vacant()).isTrue());
		this.b.round();
		assertThat(atB.isLeader()).isTrue();
		assertThat(this.a.listener.grantsAndRevocations()).isEmpty();
	}

	@Test
	void aHandOverToANodeStandingDownWhoseYieldWaitsForFencedWorkIsNeverBelievedAndYieldedAgain() {
		Election atA = this.a.service.election("x");
		handOverFromBToAStandingDown(this.b.service.election("x"));
		this.repository.setFencesBusy("x");
		for (int i = 0; i < 3; i++) {
			this.a.round();
			assertThat(atA.isLeader()).isFalse();
		}
		assertThat(this.repository.find("x"))
			.hasValueSatisfying((lease) -> assertThat(lease.leaderId()).isEqualTo("a"));
		this.repository.setFencesBusy();
		this.a.round();
		assertThat(this.repository.find("x")).hasValueSatisfying((lease) -> assertThat(lease.vacant()).isTrue());
		assertThat(this.a.listener.grantsAndRevocations()).isEmpty();
	}

	@Test
	void aLeaseTakenByAChangeDecidedBeforeStandingDownIsNeverBelievedAndGivenBack() {
		Election x = this.a.service.election("x");
		this.a.start();
		// The application stands down while the round's creation of the lease is under
		// way.
		this.repository.setDuringStatement(() -> {
			if (this.repository.statements().get(this.repository.statements().size() - 1).equals("createAll")) {
				this.a.service.standDown();
			}
		});
		this.a.round();
		assertThat(x.isLeader()).isFalse();
		assertThat(this.a.listener.grantsAndRevocations()).isEmpty();
		assertThat(this.repository.find("x")).hasValueSatisfying((lease) -> assertThat(lease.vacant()).isTrue());
	}

	@Test
	void aStopRightAfterStandingDownStillReleasesTheLease() {
		// As in a web application's shutdown: readiness refuses traffic, then the
		// election stops.
		Election x = this.a.service.election("x");
		this.a.start();
		this.a.round();
		assertThat(x.isLeader()).isTrue();
		this.a.service.standDown();
		this.a.service.stop();
		assertThat(this.repository.find("x")).hasValueSatisfying((lease) -> assertThat(lease.vacant()).isTrue());
		assertThat(this.a.listener.grantsAndRevocations()).hasSize(2).last().asString().endsWith("STOOD_DOWN");
	}

	@Test
	void partitionElectionsDoNotStandDown() {
		Election partition = this.a.service.partitionElection("partition:g:0", TakeOverPolicy.ALWAYS);
		this.a.start();
		this.a.round();
		assertThat(partition.isLeader()).isTrue();
		this.a.service.standDown();
		this.a.round();
		assertThat(partition.isLeader()).isTrue();
	}

	@Test
	void standingDownAndCampaigningTwiceChangeNothingTheSecondTime() {
		Election x = this.a.service.election("x");
		this.a.start();
		this.a.round();
		this.a.service.campaign();
		assertThat(this.a.extra).isEmpty();
		this.a.service.standDown();
		this.a.service.standDown();
		assertThat(this.a.listener.grantsAndRevocations()).hasSize(2);
		assertThat(this.a.extra).hasSize(1);
		this.a.extraRounds();
		assertThat(this.repository.find("x")).hasValueSatisfying((lease) -> assertThat(lease.vacant()).isTrue());
		this.a.service.campaign();
		this.a.service.campaign();
		assertThat(this.a.extra).hasSize(1);
		this.a.extraRounds();
		// It gave the lease up: like a release, it lets the others take it first for a
		// lease.
		for (int i = 0; i < 6 && !x.isLeader(); i++) {
			this.a.round();
		}
		assertThat(x.isLeader()).isTrue();
		assertThat(this.a.listener.grantsAndRevocations()).hasSize(3);
	}

	/** b leads, a stands down, and an operator hands the lease over from b to a. */
	private void handOverFromBToAStandingDown(Election atB) {
		this.a.start();
		this.b.start();
		this.b.round();
		this.a.round();
		assertThat(atB.isLeader()).isTrue();
		this.a.service.standDown();
		// Still a candidate: an operator may pick it from the list.
		atB.forceLeader("a");
		this.b.round();
		assertThat(atB.isLeader()).isFalse();
	}

	/** A service whose rounds run when the test says, on a fake clock of its own. */
	private final class Node extends SteppedScheduling {

		final FakeClock clock = new FakeClock();

		final RecordingListener listener = new RecordingListener();

		final ElectionService service;

		Node(String id) {
			this.service = new ElectionService(StandingDownTests.this.repository, StandingDownTests.this.settings, id,
					id + "-1", this.listener, this.clock, DatabasePreparation.NONE, new Random(1), this);
		}

		void start() {
			this.service.start();
			this.extra.clear();
		}

		/** A renew interval passes on every clock, then this node's round. */
		void round() {
			for (Node node : List.of(StandingDownTests.this.a, StandingDownTests.this.b)) {
				node.clock.advance(R);
			}
			StandingDownTests.this.repository.advanceDatabaseClock(R);
			this.service.runHeartbeat();
		}

	}

}
