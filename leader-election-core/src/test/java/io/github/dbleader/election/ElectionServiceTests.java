package io.github.dbleader.election;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessResourceFailureException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Input validation of {@link ElectionService}: ids that do not fit the lease table are
 * refused before anything is written; and its {@link DatabasePreparation}, retried every
 * renew interval while the database does not answer, before any election statement.
 */
class ElectionServiceTests {

	private final InMemoryLeaseDatabase repository = new InMemoryLeaseDatabase();

	@Test
	void theWatchdogAnnouncesTheEndOfABeliefWhileTheHeartbeatIsStuckInAStatement() throws Exception {
		List<String> revoked = new CopyOnWriteArrayList<>();
		LeadershipListener listener = new LeadershipListener() {

			@Override
			public void revoked(String election, String nodeId, long term, RevocationReason reason) {
				revoked.add(election);
			}

		};
		ElectionService service = new ElectionService(this.repository,
				ElectionSettings.of(Duration.ofMillis(600), Duration.ofMillis(100)), "a", listener);
		Election led = service.election("led");
		CountDownLatch answer = new CountDownLatch(1);
		try {
			service.start();
			await().atMost(Duration.ofSeconds(5)).until(led::isLeader);
			// Every write from now on waits: the next refresh of the session never
			// returns.
			this.repository.setDuringStatement(() -> {
				try {
					answer.await();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			});
			await().atMost(Duration.ofSeconds(5)).until(() -> revoked.contains("led"));
			assertThat(led.isLeader()).isFalse();
		}
		finally {
			answer.countDown();
			service.stop();
		}
	}

	@Test
	void aPartitionElectionsOwnListenerHearsOfThatElectionOnlyAfterTheServicesListenerEvenOneThatFails() {
		List<String> heard = new CopyOnWriteArrayList<>();
		LeadershipListener failing = new LeadershipListener() {

			@Override
			public void granted(String election, String nodeId, long term) {
				heard.add("service " + election);
				throw new IllegalStateException("the service's listener failed");
			}

		};
		ElectionService service = new ElectionService(this.repository,
				ElectionSettings.of(Duration.ofMillis(600), Duration.ofMillis(100)), "a", failing);
		Election partition = service.partitionElection("partition:g:0", (state) -> true, new LeadershipListener() {

			@Override
			public void granted(String election, String nodeId, long term) {
				heard.add("own " + election);
			}

		});
		Election other = service.election("other");
		try {
			service.start();
			await().atMost(Duration.ofSeconds(5)).until(() -> partition.isLeader() && other.isLeader());
			await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 3);
			assertThat(heard).containsOnlyOnce("own partition:g:0")
				.containsOnlyOnce("service partition:g:0", "service other")
				.doesNotContain("own other");
			assertThat(heard.indexOf("service partition:g:0")).isLessThan(heard.indexOf("own partition:g:0"));
		}
		finally {
			service.stop();
		}
	}

	@Test
	void nodeIdLongerThanTheColumnIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new ElectionService(this.repository, ElectionSettings.defaults(), "n".repeat(256),
					LeadershipListener.NONE))
			.withMessageContaining("node id")
			.withMessageContaining("at most 255");
		assertThat(this.repository.statements()).isEmpty();
	}

	@Test
	void blankNodeIdIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(
				() -> new ElectionService(this.repository, ElectionSettings.defaults(), " ", LeadershipListener.NONE))
			.withMessage("node id must not be blank");
	}

	@Test
	void electionNameLongerThanTheColumnIsRefused() {
		ElectionService service = new ElectionService(this.repository, ElectionSettings.defaults(), "a",
				LeadershipListener.NONE);
		assertThatIllegalArgumentException().isThrownBy(() -> service.election("e".repeat(129)))
			.withMessageContaining("election name")
			.withMessageContaining("at most 128");
		assertThat(service.elections()).isEmpty();
		assertThat(this.repository.statements()).isEmpty();
	}

	/** MySQL's and MariaDB's collations take 'a' and 'a ' for the same name. */
	@Test
	void namesAndNodeIdsEndingWithASpaceAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(
				() -> new ElectionService(this.repository, ElectionSettings.defaults(), "a ", LeadershipListener.NONE))
			.withMessage(
					"node id 'a ' must not end with a space, which MySQL and MariaDB ignore when they compare names");
		ElectionService service = new ElectionService(this.repository, ElectionSettings.defaults(), " a",
				LeadershipListener.NONE);
		assertThatIllegalArgumentException().isThrownBy(() -> service.election("orders "))
			.withMessage("election name 'orders ' must not end with a space, which MySQL and MariaDB ignore when they"
					+ " compare names");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> service.partitionElection("partition:orders:0 ", TakeOverPolicy.ALWAYS))
			.withMessageContaining("must not end with a space");
		assertThat(service.election(" orders").name()).isEqualTo(" orders");
		assertThat(service.elections()).extracting(Election::name).containsExactly(" orders");
		assertThat(this.repository.statements()).isEmpty();
	}

	@Test
	void electionNamesOfClusterLocksAreRefused() {
		ElectionService service = new ElectionService(this.repository, ElectionSettings.defaults(), "a",
				LeadershipListener.NONE);
		assertThatIllegalArgumentException().isThrownBy(() -> service.election("lock:nightly-report"))
			.withMessageContaining("must not start with 'lock:'");
		assertThat(service.elections()).isEmpty();
	}

	@Test
	void electionNamesOfPartitionGroupsAreReservedForThem() {
		ElectionService service = new ElectionService(this.repository, ElectionSettings.defaults(), "a",
				LeadershipListener.NONE);
		assertThatIllegalArgumentException().isThrownBy(() -> service.election("partition:orders:0"))
			.withMessageContaining("must not start with 'partition:'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> service.partitionElection("orders:0", TakeOverPolicy.ALWAYS))
			.withMessageContaining("must start with 'partition:'");
		assertThat(service.elections()).isEmpty();
		Election partition = service.partitionElection("partition:orders:0", TakeOverPolicy.ALWAYS);
		assertThat(service.elections()).containsExactly(partition);
	}

	@Test
	void electionsAreCreatedOnFirstUseAndNothingIsWrittenBeforeStart() {
		ElectionService service = new ElectionService(this.repository, ElectionSettings.defaults(), "a",
				LeadershipListener.NONE);
		Election first = service.election("jobs");
		assertThat(service.election("jobs")).isSameAs(first);
		assertThat(first.isLeader()).isFalse();
		assertThat(this.repository.statements()).isEmpty();
	}

	@Test
	void preparationIsRetriedEveryRenewIntervalAndNoElectionStatementIsSentBeforeItSucceeds() {
		ElectionSettings settings = new ElectionSettings(Duration.ofMillis(500), Duration.ofMillis(50),
				Duration.ofMillis(100), Duration.ofMillis(25));
		AtomicInteger attempts = new AtomicInteger();
		AtomicBoolean databaseAnswers = new AtomicBoolean();
		DatabasePreparation preparation = () -> {
			attempts.incrementAndGet();
			if (!databaseAnswers.get()) {
				throw new DataAccessResourceFailureException("Connection refused (simulated)");
			}
		};
		ElectionService service = new ElectionService(this.repository, settings, "a", LeadershipListener.NONE,
				MonotonicClock.SYSTEM, preparation);
		Election election = service.election("jobs");
		service.start();
		try {
			await().atMost(Duration.ofSeconds(5)).until(() -> attempts.get() >= 5);
			assertThat(service.isWaitingForDatabase()).isTrue();
			assertThat(election.isWaitingForDatabase()).isTrue();
			assertThat(election.isDatabaseReachable()).isFalse();
			assertThat(election.databaseUnreachableFor()).isPresent();
			assertThat(election.isLeader()).isFalse();
			assertThat(this.repository.statements()).isEmpty();
			databaseAnswers.set(true);
			await().atMost(Duration.ofSeconds(5)).until(election::isLeader);
			int prepared = attempts.get();
			assertThat(service.isWaitingForDatabase()).isFalse();
			assertThat(election.isDatabaseReachable()).isTrue();
			assertThat(election.databaseUnreachableFor()).isEmpty();
			// Prepared once: later rounds do not prepare again.
			await().during(Duration.ofMillis(300))
				.atMost(Duration.ofSeconds(2))
				.until(() -> attempts.get() == prepared);
		}
		finally {
			service.stop();
		}
	}

	@Test
	void serviceStoppedWhileWaitingForTheDatabaseReleasesNothing() {
		ElectionSettings settings = new ElectionSettings(Duration.ofMillis(500), Duration.ofMillis(50),
				Duration.ofMillis(100), Duration.ofMillis(25));
		AtomicInteger attempts = new AtomicInteger();
		ElectionService service = new ElectionService(this.repository, settings, "a", LeadershipListener.NONE,
				MonotonicClock.SYSTEM, () -> {
					attempts.incrementAndGet();
					throw new DataAccessResourceFailureException("Connection refused (simulated)");
				});
		service.election("jobs");
		service.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> attempts.get() >= 2);
		service.stop();
		assertThat(service.isRunning()).isFalse();
		assertThat(this.repository.statements()).isEmpty();
	}

}
