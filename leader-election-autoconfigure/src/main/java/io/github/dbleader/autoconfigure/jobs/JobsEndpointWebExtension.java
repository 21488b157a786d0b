package io.github.dbleader.autoconfigure.jobs;

import io.github.dbleader.autoconfigure.jobs.JobsEndpoint.RunDescriptor;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} for the {@link JobsEndpoint} that
 * answers a run by its outcome: 200 for a run that ended (completed, failed or refused by
 * its fence), 202 for one that still runs, 409 for a request that this node refused (it
 * does not lead, there is no leader, the lock is held, the job runs already). An unknown
 * job is 404, as for the other endpoints ({@code EndpointErrors}).
 */
@EndpointWebExtension(endpoint = JobsEndpoint.class)
public class JobsEndpointWebExtension {

	/** HTTP 202: accepted, not ended. */
	private static final int STATUS_ACCEPTED = 202;

	/** HTTP 409: refused by the state of the cluster. */
	private static final int STATUS_CONFLICT = 409;

	private final JobsEndpoint delegate;

	/**
	 * Create an extension.
	 * @param delegate the endpoint
	 */
	public JobsEndpointWebExtension(JobsEndpoint delegate) {
		this.delegate = delegate;
	}

	/**
	 * Run a job now.
	 * @param job the job's name
	 * @return what became of the run: 200 if it ended, 202 if it still runs, 409 if
	 * refused
	 */
	@WriteOperation
	public WebEndpointResponse<OperationResponseBody> run(@Selector String job) {
		RunDescriptor run = this.delegate.run(job);
		return new WebEndpointResponse<>(run, status(run.outcome()));
	}

	private static int status(JobsEndpoint.Outcome outcome) {
		return switch (outcome) {
			case COMPLETED, FAILED, REFUSED_BY_FENCE -> WebEndpointResponse.STATUS_OK;
			case RUNNING -> STATUS_ACCEPTED;
			case NOT_LEADER, NO_LEADER, LOCK_HELD, SKIPPED, ALREADY_RUNNING -> STATUS_CONFLICT;
		};
	}

}
