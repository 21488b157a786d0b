package io.github.dbleader.sample;

import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.partition.PartitionGroup;
import io.github.dbleader.election.partition.PartitionGroups;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.TransactionException;

/**
 * The third job: the work of the partition group {@value #GROUP} (12 partitions in
 * {@code application.properties}), spread over the instances. Every node fires it, and
 * each run does the work of the partitions this node owns at that moment (asked without
 * touching the database), one fenced transaction per partition with the partition's term
 * as fencing token, recorded in a table of its own: a node that lost a partition (handed
 * over, or its lease ran out) cannot commit a run of it after the new owner started.
 * Without the group (the fault tests turn it off) the job does nothing.
 */
@Component
public class PartitionedJob {

	/** The partition group's name. */
	static final String GROUP = "orders";

	private static final Logger logger = LoggerFactory.getLogger(PartitionedJob.class);

	private final @Nullable PartitionGroup group;

	private final JobRunRepository runs;

	private final SampleProperties properties;

	public PartitionedJob(PartitionGroups groups, @Qualifier(JobRunTables.PARTITION_JOB_RUNS) JobRunRepository runs,
			SampleProperties properties) {
		this.group = groups.group(GROUP);
		this.runs = runs;
		this.properties = properties;
	}

	@Scheduled(fixedDelayString = "${sample.partition-job-interval:1s}")
	public void run() {
		PartitionGroup partitions = this.group;
		if (partitions == null) {
			return;
		}
		for (int partition : partitions.ownedPartitions()) {
			runPartition(partitions, partition);
		}
	}

	private void runPartition(PartitionGroup partitions, int partition) {
		try {
			partitions.runFenced(partition, (term) -> {
				long startedAt = this.runs.databaseTime();
				work();
				this.runs.insert(PartitionGroup.electionName(GROUP, partition), partitions.nodeId(), term, startedAt);
				return null;
			});
		}
		catch (NotLeaderException ex) {
			// The partition moved between ownedPartitions() and the fence: nothing was
			// written.
			logger.info("Partition {} run not recorded: {}", partition, ex.getMessage());
		}
		catch (DataAccessException | TransactionException ex) {
			logger.warn("Partition {} run not recorded: the database did not answer: {}", partition, ex.getMessage());
		}
	}

	private void work() {
		try {
			Thread.sleep(this.properties.getPartitionJobDuration().toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
