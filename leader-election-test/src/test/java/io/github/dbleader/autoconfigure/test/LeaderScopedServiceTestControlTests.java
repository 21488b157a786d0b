package io.github.dbleader.autoconfigure.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.scoped.LeaderScopedService;
import io.github.dbleader.election.scoped.LeadershipContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Leader-scoped services under the test control: a grant starts them, a revocation has
 * stopped them by the time the control returns, a new grant starts them again; a
 * partition granted to this node starts a run for that partition.
 */
@SpringBootTest(properties = { "spring.datasource.url=jdbc:h2:mem:leader-scoped-test;DB_CLOSE_DELAY=-1",
		"leader-election.partitions.orders.count=4" })
@AutoConfigureLeaderElectionTest
class LeaderScopedServiceTestControlTests {

	private static final Duration WAIT = Duration.ofSeconds(5);

	@Autowired
	LeaderElectionTestControl leaderElection;

	@Autowired
	Recording consumer;

	@Autowired
	Recording orderWorker;

	@AfterEach
	void clear() {
		this.consumer.contexts.clear();
		this.orderWorker.contexts.clear();
	}

	@Test
	void aGrantStartsTheServiceWithTheTermAndARevocationHasStoppedItWhenTheControlReturns() {
		this.leaderElection.grant("consumer", 7);
		LeadershipContext first = this.consumer.awaitStarts(1).get(0);
		assertThat(first.term()).isEqualTo(7);
		assertThat(first.isLeader()).isTrue();

		this.leaderElection.revoke("consumer", RevocationReason.REELECTION);

		assertThat(first.isCancelled()).isTrue();
		assertThat(this.consumer.running).hasValue(0);

		this.leaderElection.grant("consumer", 9);
		LeadershipContext second = this.consumer.awaitStarts(2).get(1);
		assertThat(second.term()).isEqualTo(9);
		assertThat(second.isLeader()).isTrue();
		assertThat(this.orderWorker.contexts).isEmpty();
	}

	@Test
	void leadershipElsewhereStopsTheService() {
		this.leaderElection.grant("consumer", 3);
		LeadershipContext context = this.consumer.awaitStarts(1).get(0);

		this.leaderElection.leaderElsewhere("consumer", "node-b");

		assertThat(context.isCancelled()).isTrue();
		assertThat(this.consumer.running).hasValue(0);
	}

	@Test
	void aPartitionGrantedToThisNodeStartsARunForItAndLosingItStopsThatRun() {
		long term = this.leaderElection.grantPartition("orders", 2);
		LeadershipContext context = this.orderWorker.awaitStarts(1).get(0);
		assertThat(context.partitionGroup()).isEqualTo("orders");
		assertThat(context.partition()).isEqualTo(2);
		assertThat(context.term()).isEqualTo(term);

		this.leaderElection.partitionOwnedElsewhere("orders", 2, "node-b");

		assertThat(context.isCancelled()).isTrue();
		assertThat(this.orderWorker.running).hasValue(0);
		assertThat(this.consumer.contexts).isEmpty();
	}

	@SpringBootApplication
	static class TestApplication {

		@Bean
		Recording consumer() {
			return new Recording() {
				@Override
				public String election() {
					return "consumer";
				}
			};
		}

		@Bean
		Recording orderWorker() {
			return new Recording() {
				@Override
				public String partitionGroup() {
					return "orders";
				}
			};
		}

	}

	/** Records its starts; each runs until told to stop. */
	static class Recording implements LeaderScopedService {

		final List<LeadershipContext> contexts = new CopyOnWriteArrayList<>();

		final AtomicInteger running = new AtomicInteger();

		@Override
		public void start(LeadershipContext context) throws InterruptedException {
			this.contexts.add(context);
			this.running.incrementAndGet();
			try {
				while (!context.awaitCancellation(Duration.ofMillis(50))) {
					// The work of a leader would go here.
				}
			}
			finally {
				this.running.decrementAndGet();
			}
		}

		List<LeadershipContext> awaitStarts(int count) {
			await().atMost(WAIT).until(() -> this.contexts.size() >= count);
			return List.copyOf(this.contexts);
		}

	}

}
