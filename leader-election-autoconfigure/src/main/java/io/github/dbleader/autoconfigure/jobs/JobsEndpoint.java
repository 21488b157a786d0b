package io.github.dbleader.autoconfigure.jobs;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.dbleader.autoconfigure.endpoint.UnknownTargetException;
import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeaseState;
import io.github.dbleader.election.MonotonicClock;
import io.github.dbleader.election.aop.LeaderOnlyRun;
import io.github.dbleader.election.aop.LeaderOnlyRuns;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@link Endpoint @Endpoint} that lists this node's jobs (the {@code @LeaderOnly} and
 * {@code @ClusterLock} methods of its beans, {@link GuardedJobs}) and lets an operator
 * run one of them once, now, rather than wait for its trigger.
 *
 * <ul>
 * <li>read: the jobs by name ({@code GET /actuator/jobs}), or one job ({@code GET
 * /actuator/jobs/{job}}), each with its guard: the election whose leader runs it, or the
 * lock that the node which runs it takes;
 * <li>write: run a job now ({@code POST /actuator/jobs/{job}}), on the node that receives
 * the request. A {@code @LeaderOnly} job runs there only if that node leads its election;
 * otherwise the request is refused and the answer names the leader (as this node's
 * heartbeat last read the lease), to send the request to. A {@code @ClusterLock} job runs
 * if that node takes its lock, which any free node may; otherwise the request is refused.
 * The request is not forwarded to another node.
 * </ul>
 * The run goes through the bean's proxy, as a scheduled call does: its guard checks again
 * (and may skip it), fenced work is fenced, and the run history of the {@code leader} and
 * {@code locks} endpoints, the observations and the meters see it. The answer waits for
 * the run at most a timeout (the election's statement timeout by default, as the
 * {@code locks} endpoint waits for its writes); a run that takes longer goes on and is
 * answered {@code RUNNING} with its term and start, by which the run history shows how it
 * ends. Read-only by default: the run needs
 * {@code management.endpoint.jobs.access=unrestricted}.
 */
@Endpoint(id = "jobs", defaultAccess = Access.READ_ONLY)
public class JobsEndpoint implements AutoCloseable {

	private final ElectionService electionService;

	private final GuardedJobs jobs;

	private final @Nullable LeaderOnlyRuns leaderOnlyRuns;

	private final RunNow runNow;

	/**
	 * Create an endpoint.
	 * @param electionService the elections of this node
	 * @param jobs the jobs of this node
	 * @param beanFactory where the jobs' beans are
	 * @param leaderOnlyRuns the record of the {@code @LeaderOnly} calls, to refuse
	 * running a job whose run is under way on this node; {@code null} not to look
	 * @param timeout longest wait for a run before the answer
	 */
	public JobsEndpoint(ElectionService electionService, GuardedJobs jobs, BeanFactory beanFactory,
			@Nullable LeaderOnlyRuns leaderOnlyRuns, Duration timeout) {
		this.electionService = electionService;
		this.jobs = jobs;
		this.leaderOnlyRuns = leaderOnlyRuns;
		this.runNow = new RunNow(beanFactory, electionService.nodeId(), timeout, MonotonicClock.SYSTEM,
				Clock.systemUTC());
	}

	/**
	 * Describe this node's jobs.
	 * @return this node's id and its jobs by name
	 */
	@ReadOperation
	public JobsDescriptor jobs() {
		Map<String, JobDescriptor> jobs = new LinkedHashMap<>();
		this.jobs.jobs().forEach((name, job) -> jobs.put(name, describe(job)));
		return new JobsDescriptor(this.electionService.nodeId(), jobs);
	}

	/**
	 * Describe one job.
	 * @param job the job's name
	 * @return the job
	 * @throws UnknownTargetException if there is none of that name
	 */
	@ReadOperation
	public JobDescriptor job(@Selector String job) {
		return describe(existing(job));
	}

	/**
	 * Run a job once, now, on this node, if this node may run it.
	 * @param job the job's name
	 * @return what became of the run
	 * @throws UnknownTargetException if there is no job of that name
	 */
	@WriteOperation
	public RunDescriptor run(@Selector String job) {
		Job found = existing(job);
		RunDescriptor underWay = this.runNow.underWay(found);
		if (underWay != null) {
			return underWay;
		}
		if (found.kind() == Job.Kind.LEADER_ONLY) {
			RunDescriptor refusal = refusalOfLeaderOnly(found);
			if (refusal != null) {
				return refusal;
			}
		}
		return this.runNow.run(found);
	}

	private Job existing(String job) {
		Job found = this.jobs.find(job);
		if (found == null) {
			throw new UnknownTargetException(
					"Job '" + job + "' is unknown on this node; its jobs are " + this.jobs.jobs().keySet());
		}
		return found;
	}

	/**
	 * Why this node does not run a {@code @LeaderOnly} job now: it does not lead the
	 * election (naming the leader this node last saw), or a run of the method is under
	 * way.
	 */
	private @Nullable RunDescriptor refusalOfLeaderOnly(Job job) {
		String nodeId = this.electionService.nodeId();
		Election election = this.electionService.findElection(job.guard());
		if (election == null || election.term() < 0) {
			String leader = (election != null) ? leader(election, nodeId) : null;
			if (leader == null) {
				return new RunDescriptor(job.name(), nodeId, Outcome.NO_LEADER, null, null, null, null,
						"election '" + job.guard() + "' has no leader now; try again once one is elected");
			}
			return new RunDescriptor(job.name(), nodeId, Outcome.NOT_LEADER, null, null, null, leader,
					"this node does not lead election '" + job.guard() + "'; node '" + leader
							+ "' does: send the request there");
		}
		if (this.leaderOnlyRuns != null) {
			for (LeaderOnlyRun run : this.leaderOnlyRuns.recentRuns(job.guard())) {
				if (run.outcome() == LeaderOnlyRun.Outcome.RUNNING && run.method().equals(job.method())) {
					return new RunDescriptor(job.name(), nodeId, Outcome.ALREADY_RUNNING, run.term(), run.startedAt(),
							null, null, "a run of " + job.method() + "() is under way on this node");
				}
			}
		}
		return null;
	}

	/**
	 * The leader as this node's heartbeat last read the lease, if the lease is live and
	 * names another node: a lease of this node's that it no longer believes in (released,
	 * or not renewed in time) has no leader to send the request to.
	 */
	private static @Nullable String leader(Election election, String nodeId) {
		LeaseState lease = election.lastSeenLease().map((sighting) -> sighting.lease()).orElse(null);
		if (lease == null || lease.expired() || lease.vacant() || nodeId.equals(lease.leaderId())) {
			return null;
		}
		return lease.leaderId();
	}

	private static JobDescriptor describe(Job job) {
		boolean leaderOnly = job.kind() == Job.Kind.LEADER_ONLY;
		return new JobDescriptor(job.kind(), leaderOnly ? job.guard() : null, leaderOnly ? null : job.guard(),
				job.method());
	}

	@Override
	public void close() {
		this.runNow.close();
	}

	/**
	 * This node's jobs.
	 *
	 * @param nodeId this node's id
	 * @param jobs the jobs by name (the bean's name, a dot and the method's)
	 */
	public record JobsDescriptor(String nodeId, Map<String, JobDescriptor> jobs) implements OperationResponseBody {

	}

	/**
	 * One job.
	 *
	 * @param kind {@code LEADER_ONLY} or {@code CLUSTER_LOCK}
	 * @param election the election whose leader runs it, for {@code LEADER_ONLY}
	 * @param lock the lock that the node which runs it takes, for {@code CLUSTER_LOCK}
	 * @param method the bean's class (simple name), a dot and the method's name, as the
	 * run history names it
	 */
	public record JobDescriptor(Job.Kind kind, @Nullable String election, @Nullable String lock,
			String method) implements OperationResponseBody {

	}

	/**
	 * What became of a request to run a job now.
	 *
	 * @param job the job's name
	 * @param nodeId the node that received the request (and ran the job, if it ran)
	 * @param outcome what became of it
	 * @param term the term it ran under (the election's or the lock's), absent if it did
	 * not start
	 * @param startedAt when it started (this node's clock), absent if it did not start
	 * @param duration how long it ran, or has run so far if {@code RUNNING}
	 * @param leader the node that leads the job's election, for {@code NOT_LEADER}
	 * @param reason why it did not run, why it failed, or why the answer came before its
	 * end
	 */
	public record RunDescriptor(String job, String nodeId, Outcome outcome, @Nullable Long term,
			@Nullable Instant startedAt, @Nullable Duration duration, @Nullable String leader,
			@Nullable String reason) implements OperationResponseBody {

	}

	/**
	 * What became of a request to run a job now.
	 */
	public enum Outcome {

		/** It ran and returned. */
		COMPLETED,

		/** It ran and threw. */
		FAILED,

		/**
		 * It ran and threw a refusal of its fence ({@code NotLeaderException},
		 * {@code LockNotHeldException}, itself or as a cause): nothing of its fenced work
		 * committed.
		 */
		REFUSED_BY_FENCE,

		/**
		 * It runs still, past the wait: it goes on, and its run history shows its end.
		 */
		RUNNING,

		/** Not run: this node does not lead the job's election, {@code leader} does. */
		NOT_LEADER,

		/** Not run: the job's election has no leader now. */
		NO_LEADER,

		/** Not run: this node did not take the job's lock, which another run holds. */
		LOCK_HELD,

		/** Not run: this node's leadership ended between the request and the call. */
		SKIPPED,

		/** Not run: a run of the job is under way on this node. */
		ALREADY_RUNNING

	}

}
