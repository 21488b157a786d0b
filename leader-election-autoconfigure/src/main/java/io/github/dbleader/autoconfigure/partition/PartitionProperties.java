package io.github.dbleader.autoconfigure.partition;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.dbleader.election.partition.PartitionSettings;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties of partition groups:
 * {@code leader-election.partitions.<group>.*}, one entry per group that this node joins
 * at start-up.
 */
@ConfigurationProperties("leader-election")
public class PartitionProperties {

	/**
	 * Partition groups this node joins at start-up, by group name (letters, digits, '.',
	 * '_' or '-', at most 100 characters).
	 */
	private Map<String, Group> partitions = new LinkedHashMap<>();

	public Map<String, Group> getPartitions() {
		return this.partitions;
	}

	public void setPartitions(Map<String, Group> partitions) {
		this.partitions = partitions;
	}

	/** One partition group. */
	public static class Group {

		/**
		 * Number of partitions of the group, each an election with its own lease and
		 * term. Every node of the group must use the same number.
		 */
		private int count = 1;

		/**
		 * How long a node must have been a live member of the group before it receives
		 * partitions, so that a node that joins and leaves every few seconds never makes
		 * partitions move back and forth. Nodes that start within this time of the
		 * group's oldest member balance at once.
		 */
		private Duration settleTime = PartitionSettings.DEFAULT_SETTLE_TIME;

		/**
		 * Most hand-overs of the group's partitions that one node has under way at once.
		 * The default, two batches of the heartbeat's changes of holder, lets a third
		 * node's join move its share of up to 12,000 partitions at once, within about
		 * three renew intervals; a lower limit spreads the moves over more of them.
		 */
		private int maxHandOvers = PartitionSettings.DEFAULT_MAX_HAND_OVERS_PER_ROUND;

		public int getCount() {
			return this.count;
		}

		public void setCount(int count) {
			this.count = count;
		}

		public Duration getSettleTime() {
			return this.settleTime;
		}

		public void setSettleTime(Duration settleTime) {
			this.settleTime = settleTime;
		}

		public int getMaxHandOvers() {
			return this.maxHandOvers;
		}

		public void setMaxHandOvers(int maxHandOvers) {
			this.maxHandOvers = maxHandOvers;
		}

		/**
		 * The group's balancing settings.
		 * @return the settings
		 * @throws IllegalArgumentException if a value is out of range
		 */
		public PartitionSettings determineSettings() {
			return new PartitionSettings(this.settleTime, this.maxHandOvers);
		}

	}

}
