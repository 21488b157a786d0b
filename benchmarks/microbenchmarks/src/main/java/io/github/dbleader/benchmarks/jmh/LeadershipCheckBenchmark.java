package io.github.dbleader.benchmarks.jmh;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.aop.LeaderOnlyAdvisor;
import io.github.dbleader.election.aop.LeaderOnlyInterceptor;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.LeaseSchema;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import org.springframework.aop.framework.ProxyFactory;

/**
 * Cost of the leadership check, with the election running for real: two election services
 * on one in-memory H2 database, one leading and one following, each renewing every 500 ms
 * on its heartbeat thread while the benchmark thread calls.
 *
 * <ul>
 * <li>{@code plainCall}: the baseline, the method called directly;
 * <li>{@code passThroughProxyCall}: the method through a Spring AOP proxy whose only
 * advice proceeds at once, the cost of the proxy alone;
 * <li>{@code isLeaderOnLeader} / {@code isLeaderOnFollower}: {@link Election#isLeader()};
 * <li>{@code leaderOnlyTaken} / {@code leaderOnlySkipped}: the same method through a
 * Spring AOP proxy with {@link LeaderOnlyAdvisor}, on the leader (the call runs) and on
 * the follower (the call is skipped).
 * </ul>
 *
 * <p>
 * The lease repository counts its calls by thread; at the end of each trial the counts
 * are appended to the file named by the system property {@value #REPORT_PROPERTY}, so the
 * harness can show that the benchmark thread made no database call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class LeadershipCheckBenchmark {

	/** System property naming the file the repository call counts are appended to. */
	public static final String REPORT_PROPERTY = "bench.jmh.report";

	private static final Duration LEASE = Duration.ofSeconds(3);

	private static final Duration RENEW_INTERVAL = Duration.ofMillis(500);

	private final AtomicInteger revocations = new AtomicInteger();

	private HikariDataSource dataSource;

	private CountingLeaseRepository repository;

	private ElectionService leaderService;

	private ElectionService followerService;

	private Election leader;

	private Election follower;

	private ScheduledWork plain;

	private ScheduledWork passThrough;

	private ScheduledWork onLeader;

	private ScheduledWork onFollower;

	private long repositoryCallsBefore;

	private long heartbeatCallsBefore;

	private long measuredFromNanos;

	@Setup
	public void startElections() throws InterruptedException {
		this.dataSource = new HikariDataSource();
		this.dataSource.setJdbcUrl("jdbc:h2:mem:leadership-check;DB_CLOSE_DELAY=-1");
		this.dataSource.setMaximumPoolSize(4);
		LeaseSchema.create(this.dataSource, SqlDialect.H2, LeaseTables.defaults());
		ElectionSettings settings = ElectionSettings.of(LEASE, RENEW_INTERVAL);
		this.repository = new CountingLeaseRepository(new JdbcLeaseRepository(this.dataSource, SqlDialect.H2,
				LeaseTables.defaults(), settings.statementTimeout()));
		this.leaderService = new ElectionService(this.repository, settings, "leader", new LeadershipListener() {

			@Override
			public void revoked(String election, String nodeId, long term, RevocationReason reason) {
				LeadershipCheckBenchmark.this.revocations.incrementAndGet();
			}

		});
		this.leader = this.leaderService.election("default");
		this.leaderService.start();
		awaitLeadership(this.leader);
		this.followerService = new ElectionService(this.repository, settings, "follower", LeadershipListener.NONE);
		this.follower = this.followerService.election("default");
		this.followerService.start();
		Thread.sleep(2 * RENEW_INTERVAL.toMillis());
		if (this.follower.isLeader()) {
			throw new IllegalStateException("The follower leads");
		}
		this.plain = new ScheduledWork();
		ProxyFactory passThroughFactory = new ProxyFactory(new ScheduledWork());
		passThroughFactory.setProxyTargetClass(true);
		passThroughFactory.addAdvice((MethodInterceptor) MethodInvocation::proceed);
		this.passThrough = (ScheduledWork) passThroughFactory.getProxy();
		this.onLeader = advised(this.leaderService);
		this.onFollower = advised(this.followerService);
		this.repositoryCallsBefore = this.repository.otherThreadCalls();
		this.heartbeatCallsBefore = this.repository.electionThreadCalls();
		this.measuredFromNanos = System.nanoTime();
	}

	private static void awaitLeadership(Election election) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!election.isLeader()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("No leadership within 10 s");
			}
			Thread.sleep(10);
		}
	}

	private static ScheduledWork advised(ElectionService service) {
		ProxyFactory factory = new ProxyFactory(new ScheduledWork());
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new LeaderOnlyAdvisor(new LeaderOnlyInterceptor(() -> service, List::of)));
		return (ScheduledWork) factory.getProxy();
	}

	@TearDown
	public void stopElections(BenchmarkParams params) {
		double seconds = (System.nanoTime() - this.measuredFromNanos) / 1e9;
		long benchmarkThreadCalls = this.repository.otherThreadCalls() - this.repositoryCallsBefore;
		long heartbeatCalls = this.repository.electionThreadCalls() - this.heartbeatCallsBefore;
		boolean stillLeads = this.leader.isLeader() && !this.follower.isLeader();
		int revoked = this.revocations.get();
		this.followerService.stop();
		this.leaderService.stop();
		this.dataSource.close();
		String report = System.getProperty(REPORT_PROPERTY);
		if (report != null) {
			String line = String.format("%s,%d,%d,%.1f,%d,%s%n", params.getBenchmark(), benchmarkThreadCalls,
					heartbeatCalls, seconds, revoked, stillLeads);
			try {
				Files.writeString(Path.of(report), line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
						StandardOpenOption.APPEND);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
	}

	@Benchmark
	public long plainCall() {
		return this.plain.run();
	}

	@Benchmark
	public long passThroughProxyCall() {
		return this.passThrough.run();
	}

	@Benchmark
	public boolean isLeaderOnLeader() {
		return this.leader.isLeader();
	}

	@Benchmark
	public boolean isLeaderOnFollower() {
		return this.follower.isLeader();
	}

	@Benchmark
	public long leaderOnlyTaken() {
		return this.onLeader.run();
	}

	@Benchmark
	public long leaderOnlySkipped() {
		return this.onFollower.run();
	}

}
