package io.github.dbleader.sample;

import java.util.List;

import io.github.dbleader.autoconfigure.test.AutoConfigureLeaderElectionTest;
import io.github.dbleader.autoconfigure.test.LeaderElectionTestControl;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.event.LeadershipGrantedEvent;
import io.github.dbleader.election.event.LeadershipRevokedEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.willAnswer;

/**
 * The sample's jobs in each role the test control puts the node in: no database server
 * (an in-memory H2 database for the job's own table), no waiting for leases, no sleeps.
 * The schedules are switched off: the test runs the jobs itself.
 */
@SpringBootTest(properties = { "spring.datasource.url=jdbc:h2:mem:sample-roles;MODE=MySQL;DB_CLOSE_DELAY=-1",
		"spring.profiles.active=no-partitions", "sample.job-interval=1h", "sample.job-duration=0ms",
		"sample.lock-job-cron=-", "sample.lock-job-duration=0ms" })
@AutoConfigureLeaderElectionTest
class SampleLeaderRolesTests {

	@Autowired
	LeaderElectionTestControl leaderElection;

	@Autowired
	FencedJob job;

	@Autowired
	ClusterLockJob lockJob;

	@MockitoSpyBean(name = "jobRunRepository")
	JobRunRepository runs;

	@Autowired
	JdbcTemplate jdbc;

	@AfterEach
	void deleteRuns() {
		for (String table : List.of("job_runs", "lock_job_runs")) {
			try {
				this.jdbc.update("DELETE FROM " + table);
			}
			catch (BadSqlGrammarException ex) {
				// The sample creates its tables on first use: this test never wrote to
				// it.
			}
		}
	}

	@Test
	void leaderRunsTheJobUnderItsTerm() {
		this.leaderElection.grant(FencedJob.ELECTION, 42);

		this.job.run();

		assertThat(this.runs.latest(10)).singleElement().satisfies((run) -> {
			assertThat(run.term()).isEqualTo(42);
			assertThat(run.nodeId()).isEqualTo(this.leaderElection.nodeId());
		});
		assertThat(this.leaderElection.events()).filteredOn(LeadershipGrantedEvent.class::isInstance)
			.singleElement()
			.satisfies((event) -> assertThat(((LeadershipGrantedEvent) event).getTerm()).isEqualTo(42));
	}

	@Test
	void followerSkipsTheJob() {
		this.leaderElection.leaderElsewhere(FencedJob.ELECTION, "node-b");

		this.job.run();

		assertThat(this.runs.latest(10)).isEmpty();
	}

	@Test
	void leadershipRevokedDuringTheRunRefusesItsFencedWrite() {
		this.leaderElection.grant(FencedJob.ELECTION, 7);
		// The run passed @LeaderOnly and is inside its fenced transaction when another
		// node takes the lease over.
		willAnswer((invocation) -> {
			this.leaderElection.leaderElsewhere(FencedJob.ELECTION, "node-b");
			return invocation.callRealMethod();
		}).given(this.runs).insert(anyString(), anyString(), anyLong(), anyLong());

		this.job.run();

		assertThat(this.runs.latest(10)).isEmpty();
		assertThat(this.leaderElection.events()).filteredOn(LeadershipRevokedEvent.class::isInstance)
			.singleElement()
			.satisfies((event) -> assertThat(((LeadershipRevokedEvent) event).getReason())
				.isEqualTo(RevocationReason.EXPIRED));

		// Later runs are skipped before they touch the database.
		this.job.run();
		assertThat(this.runs.latest(10)).isEmpty();
	}

	@Test
	void lockJobRunsOnlyWhileTheLockIsFree() {
		this.lockJob.run();
		this.leaderElection.lockHeldElsewhere(ClusterLockJob.LOCK);
		this.lockJob.run();

		List<Long> terms = this.jdbc.queryForList("SELECT term FROM lock_job_runs", Long.class);
		assertThat(terms).hasSize(1);
	}

}
