package io.github.dbleader.election.partition;

import java.time.Duration;
import java.util.Objects;

import io.github.dbleader.election.ElectionService;

/**
 * How a node balances the partitions of its groups.
 *
 * @param settleTime how long a node must have been a live member of a group before it
 * receives partitions, so that a node that joins and leaves every few seconds never makes
 * partitions move back and forth
 * @param maxHandOversPerRound most hand-overs this node has under way per group at once
 * (started by it and not yet carried out); by default two batches of the heartbeat's
 * changes of holder ({@link ElectionService#HOLDER_CHANGES_PER_BATCH}), so that a third
 * node's join moves its share of up to 12,000 partitions in one wave (each owner hands
 * over a sixth), and each heartbeat round carries them out in two batches
 */
public record PartitionSettings(Duration settleTime, int maxHandOversPerRound) {

	/** Default settle time. */
	public static final Duration DEFAULT_SETTLE_TIME = Duration.ofSeconds(10);

	/**
	 * Default limit of hand-overs under way per node and group: two batches of the
	 * heartbeat.
	 */
	public static final int DEFAULT_MAX_HAND_OVERS_PER_ROUND = 2 * ElectionService.HOLDER_CHANGES_PER_BATCH;

	/**
	 * Validate the settings.
	 * @throws IllegalArgumentException if the settle time is negative or the limit below
	 * 1
	 */
	public PartitionSettings {
		Objects.requireNonNull(settleTime, "settleTime must not be null");
		if (settleTime.isNegative()) {
			throw new IllegalArgumentException("settleTime must not be negative but was " + settleTime);
		}
		if (maxHandOversPerRound < 1) {
			throw new IllegalArgumentException(
					"maxHandOversPerRound must be at least 1 but was " + maxHandOversPerRound);
		}
	}

	/**
	 * @return the defaults
	 */
	public static PartitionSettings defaults() {
		return new PartitionSettings(DEFAULT_SETTLE_TIME, DEFAULT_MAX_HAND_OVERS_PER_ROUND);
	}

}
