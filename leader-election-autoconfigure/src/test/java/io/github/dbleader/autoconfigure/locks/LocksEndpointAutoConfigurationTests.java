package io.github.dbleader.autoconfigure.locks;

import java.time.Duration;
import java.util.UUID;

import io.github.dbleader.autoconfigure.LeaderElectionAutoConfiguration;
import io.github.dbleader.autoconfigure.endpoint.UnknownTargetException;
import io.github.dbleader.autoconfigure.locks.LocksEndpoint.LockDescriptor;
import io.github.dbleader.autoconfigure.locks.LocksEndpoint.LocksDescriptor;
import io.github.dbleader.autoconfigure.locks.LocksEndpoint.ReleaseDescriptor;
import io.github.dbleader.election.lock.ClusterLocks;
import io.github.dbleader.election.lock.HeldLock;
import io.github.dbleader.election.lock.LockNotHeldException;
import io.github.dbleader.election.lock.LockRepository;
import io.github.dbleader.election.lock.LockRun;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link LocksEndpointAutoConfiguration} and the {@link LocksEndpoint} on an
 * embedded database. A second {@link ClusterLocks} on the same database plays another
 * node.
 */
class LocksEndpointAutoConfigurationTests {

	private static final Duration AT_MOST = Duration.ofSeconds(30);

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
				DataSourceTransactionManagerAutoConfiguration.class, LeaderElectionAutoConfiguration.class,
				LocksEndpointAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
				"leader-election.lease-duration=10s", "leader-election.renew-interval=2s",
				"leader-election.node-id=here");

	@Test
	void configuresTheEndpointWhenExposed() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=locks")
			.run((context) -> assertThat(context).hasSingleBean(LocksEndpoint.class).hasBean("locksEndpointErrors"));
	}

	@Test
	void configuresTheEndpointWhenExposedOverJmxOnly() {
		this.contextRunner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=locks")
			.run((context) -> assertThat(context).hasSingleBean(LocksEndpoint.class).hasBean("locksEndpointErrors"));
	}

	@Test
	void backsOffWhenNotExposed() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void backsOffWhenDisabled() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=locks",
					"management.endpoint.locks.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void backsOffWithoutElectionService() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=locks", "leader-election.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void listsTheLocksWithTheirHolderAndThisNodesRuns() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			ClusterLocks here = context.getBean(ClusterLocks.class);
			ClusterLocks elsewhere = otherNode(context);
			assertThat(endpoint.locks().locks()).isEmpty();
			here.runLocked("report", AT_MOST, Duration.ZERO, true, (lock) -> {
				LockDescriptor during = endpoint.lock("report");
				assertThat(during.holder()).isEqualTo("here");
				assertThat(during.heldByThisNode()).isTrue();
				assertThat(during.term()).isEqualTo(lock.term());
				assertThat(during.recentRuns()).singleElement()
					.extracting(LocksEndpoint.RunDescriptor::outcome)
					.isEqualTo(LockRun.Outcome.RUNNING);
			});
			HeldLock held = elsewhere.tryLock("report", AT_MOST, Duration.ZERO).orElseThrow();
			LocksDescriptor locks = endpoint.locks();
			assertThat(locks.nodeId()).isEqualTo("here");
			assertThat(locks.stale()).isFalse();
			LockDescriptor report = locks.locks().get("report");
			assertThat(report.holder()).isEqualTo("elsewhere");
			assertThat(report.held()).isTrue();
			assertThat(report.heldByThisNode()).isFalse();
			assertThat(report.term()).isEqualTo(held.term());
			assertThat(report.heldUntil()).isAfter(report.acquiredAt());
			assertThat(report.recentRuns()).singleElement().satisfies((run) -> {
				assertThat(run.outcome()).isEqualTo(LockRun.Outcome.COMPLETED);
				assertThat(run.endedAt()).isNotNull();
				assertThat(run.term()).isLessThan(held.term());
			});
			assertThatExceptionOfType(UnknownTargetException.class).isThrownBy(() -> endpoint.lock("unknown"))
				.withMessage("Lock 'unknown' is unknown: it was never taken (or, while the database does not answer,"
						+ " this node never read it)");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.lock("x".repeat(200)));
		});
	}

	@Test
	void releaseBumpsTheTermSoThatTheHoldersFencedWorkIsRefused() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			ClusterLocks elsewhere = otherNode(context);
			assertThat(endpoint.release("report")).as("never taken").isNull();
			HeldLock stuck = elsewhere.tryLock("report", AT_MOST, AT_MOST).orElseThrow();
			ReleaseDescriptor released = endpoint.release("report");
			assertThat(released.term()).isGreaterThan(stuck.term());
			LockDescriptor report = endpoint.lock("report");
			assertThat(report.holder()).isNull();
			assertThat(report.held()).isFalse();
			assertThat(report.term()).isEqualTo(released.term());
			assertThat(stuck.isHeld()).as("the holder does not know yet").isTrue();
			assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> stuck.runFenced((term) -> term));
			assertThat(context.getBean(ClusterLocks.class).tryLock("report", AT_MOST, Duration.ZERO)).isPresent();
		});
	}

	private static ClusterLocks otherNode(ApplicationContext context) {
		return new ClusterLocks(context.getBean(LockRepository.class), "elsewhere");
	}

}
