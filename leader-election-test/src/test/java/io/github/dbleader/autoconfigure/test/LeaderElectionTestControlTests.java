package io.github.dbleader.autoconfigure.test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.dbleader.election.event.PartitionGainedEvent;
import io.github.dbleader.election.event.PartitionLostEvent;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.aop.ClusterLock;
import io.github.dbleader.election.aop.LeaderOnly;
import io.github.dbleader.election.event.LeaderChangedEvent;
import io.github.dbleader.election.event.LeadershipEvent;
import io.github.dbleader.election.event.LeadershipGrantedEvent;
import io.github.dbleader.election.event.LeadershipRevokedEvent;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.LockNotHeldException;
import io.github.dbleader.election.partition.PartitionGroup;
import io.github.dbleader.election.partition.PartitionGroups;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The test control drives the production election (state machine, events,
 * {@code @LeaderOnly}, {@code @ClusterLock}, fencing) on an embedded H2 database, with no
 * lease table traffic and no sleeps.
 */
@SpringBootTest(properties = { "spring.datasource.url=jdbc:h2:mem:leader-election-test;DB_CLOSE_DELAY=-1",
		"leader-election.partitions.orders.count=4",
		// A failover (revoke with SERVER_CHANGED) leads again a lease later.
		"leader-election.lease-duration=2s" })
@AutoConfigureLeaderElectionTest
class LeaderElectionTestControlTests {

	@Autowired
	LeaderElectionTestControl leaderElection;

	@Autowired
	ElectionService elections;

	@Autowired
	Jobs jobs;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	PartitionGroups partitionGroups;

	@Autowired
	PartitionEvents partitionEvents;

	@AfterEach
	void deleteRuns() {
		this.jdbc.update("DELETE FROM runs");
		this.jobs.resetReportRuns();
		this.partitionEvents.clear();
	}

	@Test
	void leaderRunsTheJobWithTheGrantedTermAndTheSameEventsAsInProduction() {
		this.leaderElection.grant("reports", 7);

		assertThat(this.elections.election("reports").isLeader()).isTrue();
		assertThat(this.elections.election("reports").term()).isEqualTo(7);
		assertThat(leadershipEvents()).containsExactly("LeaderChangedEvent reports null->" + nodeId() + " 7",
				"LeadershipGrantedEvent reports 7");
		this.jobs.report();
		assertThat(this.jobs.reportRuns()).isOne();
		assertThat(this.jdbc.queryForList("SELECT term FROM runs", Long.class)).containsExactly(7L);
	}

	@Test
	void followerSkipsTheJob() {
		this.leaderElection.leaderElsewhere("reports", "node-b");

		this.jobs.report();
		assertThat(this.jobs.reportRuns()).isZero();
		assertThat(this.elections.election("reports").lastSeenLease().orElseThrow().lease().leaderId())
			.isEqualTo("node-b");
		assertThat(leadershipEvents()).containsExactly("LeaderChangedEvent reports null->node-b 1");
	}

	@Test
	void revokedLeaderSkipsTheJobAndItsFencedWorkIsRefused() {
		this.leaderElection.grant("reports", 3);
		Election reports = this.elections.election("reports");

		this.leaderElection.revoke("reports", RevocationReason.REELECTION);

		assertThat(reports.isLeader()).isFalse();
		assertThat(events(LeadershipRevokedEvent.class)).singleElement()
			.satisfies((revoked) -> assertThat(revoked.getReason()).isEqualTo(RevocationReason.REELECTION));
		this.jobs.report();
		assertThat(this.jobs.reportRuns()).isZero();
		assertThatExceptionOfType(NotLeaderException.class)
			.isThrownBy(() -> reports.runFenced((term) -> insertRun(term)));
		assertThat(runs()).isZero();
	}

	@Test
	void fencedWorkUnderWayWhenLeadershipEndsIsNotCommitted() {
		this.leaderElection.grant("reports", 4);
		Election reports = this.elections.election("reports");

		assertThatExceptionOfType(NotLeaderException.class).isThrownBy(() -> reports.runFenced((term) -> {
			insertRun(term);
			this.leaderElection.leaderElsewhere("reports", "node-b");
			return null;
		}));

		assertThat(runs()).isZero();
		assertThat(events(LeadershipRevokedEvent.class)).singleElement()
			.satisfies((revoked) -> assertThat(revoked.getReason()).isEqualTo(RevocationReason.EXPIRED));
	}

	@Test
	void handOverAndFailOverRevokeWithTheirReasons() {
		this.leaderElection.grant("reports", 10);

		this.leaderElection.revoke("reports", RevocationReason.SERVER_CHANGED);
		assertThat(this.elections.election("reports").term()).isEqualTo(11);

		this.leaderElection.handOver("reports", "node-b");
		assertThat(this.elections.election("reports").isLeader()).isFalse();
		assertThat(events(LeadershipRevokedEvent.class).map(LeadershipRevokedEvent::getReason))
			.containsExactly(RevocationReason.SERVER_CHANGED, RevocationReason.HANDED_OVER);
		assertThat(events(LeadershipGrantedEvent.class).map(LeadershipGrantedEvent::getTerm)).containsExactly(10L, 11L);

		this.leaderElection.handOver("reports", this.leaderElection.nodeId());
		assertThat(this.elections.election("reports").term()).isEqualTo(13);
	}

	@Test
	void termsOnlyGrow() {
		this.leaderElection.grant("reports", 5);
		this.leaderElection.noLeader("reports");

		assertThatIllegalArgumentException().isThrownBy(() -> this.leaderElection.grant("reports", 5));
		assertThat(this.leaderElection.grant("reports")).isEqualTo(7);
	}

	@Test
	void clusterLockRunsWhenFreeAndIsSkippedWhenHeldElsewhere() {
		assertThat(this.jobs.nightly()).isTrue();

		this.leaderElection.lockHeldElsewhere("nightly");
		assertThat(this.jobs.nightly()).isFalse();

		this.leaderElection.freeLock("nightly");
		assertThat(this.jobs.nightly()).isTrue();
		assertThat(runs()).isEqualTo(2);
	}

	@Test
	void lockLostDuringTheRunRefusesItsFencedWork() {
		this.jobs.duringNightly(() -> this.leaderElection.lockHeldElsewhere("nightly"));

		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(this.jobs::nightly);
		assertThat(runs()).isZero();
		this.jobs.duringNightly(() -> {
		});
	}

	@Test
	void partitionsChangeOwnerOnlyWhenTheTestSaysSo() {
		PartitionGroup orders = this.partitionGroups.group("orders");
		assertThat(orders.isOwner(2)).isFalse();

		long term = this.leaderElection.grantPartition("orders", 2);

		assertThat(orders.isOwner(2)).isTrue();
		assertThat(orders.isOwner(1)).isFalse();
		assertThat(this.partitionEvents.events()).containsExactly("gained orders 2 " + term);

		this.leaderElection.partitionOwnedElsewhere("orders", 2, "node-b");

		assertThat(orders.isOwner(2)).isFalse();
		assertThat(this.partitionEvents.events()).containsExactly("gained orders 2 " + term,
				"lost orders 2 " + term + " EXPIRED");
	}

	private <E extends LeadershipEvent> Stream<E> events(Class<E> type) {
		return this.leaderElection.events().stream().filter(type::isInstance).map(type::cast);
	}

	private String nodeId() {
		return this.leaderElection.nodeId();
	}

	private List<String> leadershipEvents() {
		return this.leaderElection.events().stream().map(LeaderElectionTestControlTests::describe).toList();
	}

	private static String describe(LeadershipEvent event) {
		if (event instanceof LeadershipGrantedEvent granted) {
			return "LeadershipGrantedEvent " + granted.getElection() + " " + granted.getTerm();
		}
		if (event instanceof LeadershipRevokedEvent revoked) {
			return "LeadershipRevokedEvent " + revoked.getElection() + " " + revoked.getTerm() + " "
					+ revoked.getReason();
		}
		LeaderChangedEvent changed = (LeaderChangedEvent) event;
		return "LeaderChangedEvent " + changed.getElection() + " " + changed.getPreviousLeader() + "->"
				+ changed.getNewLeader() + " " + changed.getTerm();
	}

	private Void insertRun(long term) {
		this.jdbc.update("INSERT INTO runs (term) VALUES (?)", term);
		return null;
	}

	private int runs() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM runs", Integer.class);
	}

	@SpringBootApplication
	static class TestApplication {

		@Bean
		PartitionEvents partitionEvents() {
			return new PartitionEvents();
		}

		@Bean
		Jobs jobs(ElectionService elections, ClusterLocks locks, JdbcTemplate jdbc) {
			jdbc.execute("CREATE TABLE IF NOT EXISTS runs (term BIGINT)");
			return new Jobs(elections, locks, jdbc);
		}

	}

	/** Records the partition events, published on the election's thread. */
	static class PartitionEvents {

		private final List<String> events = new CopyOnWriteArrayList<>();

		@EventListener
		void gained(PartitionGainedEvent event) {
			this.events.add("gained " + event.getGroup() + " " + event.getPartition() + " " + event.getTerm());
		}

		@EventListener
		void lost(PartitionLostEvent event) {
			this.events.add("lost " + event.getGroup() + " " + event.getPartition() + " " + event.getTerm() + " "
					+ event.getReason());
		}

		List<String> events() {
			return List.copyOf(this.events);
		}

		void clear() {
			this.events.clear();
		}

	}

	/**
	 * An application's jobs: one for the leader, one under a cluster lock, both fenced.
	 */
	static class Jobs {

		private final AtomicInteger reportRuns = new AtomicInteger();

		private final ElectionService elections;

		private final ClusterLocks locks;

		private final JdbcTemplate jdbc;

		private volatile Runnable duringNightly = () -> {
		};

		Jobs(ElectionService elections, ClusterLocks locks, JdbcTemplate jdbc) {
			this.elections = elections;
			this.locks = locks;
			this.jdbc = jdbc;
		}

		public int reportRuns() {
			return this.reportRuns.get();
		}

		public void resetReportRuns() {
			this.reportRuns.set(0);
		}

		public void duringNightly(Runnable action) {
			this.duringNightly = action;
		}

		@LeaderOnly("reports")
		public void report() {
			this.reportRuns.incrementAndGet();
			this.elections.election("reports").runFenced((term) -> {
				this.jdbc.update("INSERT INTO runs (term) VALUES (?)", term);
				return null;
			});
		}

		/**
		 * @return whether it ran
		 */
		@ClusterLock(name = "nightly", atLeastFor = "0s")
		public boolean nightly() {
			this.locks.currentLock().orElseThrow().runFenced((term) -> {
				this.jdbc.update("INSERT INTO runs (term) VALUES (?)", term);
				this.duringNightly.run();
				return null;
			});
			return true;
		}

	}

}
