package io.github.dbleader.election.partition;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeaseState;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hand-overs a partition group's balancing steps ask for on this node: all of a
 * step's in a few statements, at most a limit under way at once, and each counted as
 * under way until the heartbeat's read shows the request (the lease row's version moved
 * on).
 */
final class PartitionHandOvers {

	private static final Logger logger = LoggerFactory.getLogger(PartitionHandOvers.class);

	private final ElectionService service;

	private final String group;

	private final List<Election> elections;

	private final int maxPerRound;

	/**
	 * Hand-overs this node requested, by partition: the version of the lease row as seen
	 * when it requested them. Until the heartbeat reads the row again, the lease last
	 * seen does not show the request, and the hand-over still counts as under way.
	 */
	private final Map<Integer, Long> requestedOnVersion = new HashMap<>();

	PartitionHandOvers(ElectionService service, String group, List<Election> elections, int maxPerRound) {
		this.service = service;
		this.group = group;
		this.elections = elections;
		this.maxPerRound = maxPerRound;
	}

	/**
	 * Ask for the hand-overs this node owes: of each partition it holds whose target is
	 * another node, as many as the limit allows beside those under way.
	 * @param targets the target owner by partition, as the step computed them
	 * @param leases the lease of each partition as last seen, or {@code null}
	 */
	void request(List<@Nullable String> targets, List<@Nullable LeaseState> leases) {
		int underWay = 0;
		List<Integer> moving = new ArrayList<>();
		for (int partition = 0; partition < this.elections.size(); partition++) {
			LeaseState lease = leases.get(partition);
			Long requestedOn = this.requestedOnVersion.remove(partition);
			// By the row, not by belief: the heartbeat stops believing before it sends
			// the
			// hand-over, and the request stays in the row until that statement commits.
			if (lease == null || !this.service.nodeId().equals(lease.leaderId())) {
				continue;
			}
			boolean requestUnseen = requestedOn != null && requestedOn == lease.version();
			if (requestUnseen) {
				this.requestedOnVersion.put(partition, requestedOn);
			}
			String target = targets.get(partition);
			if (lease.handoverTo() != null || requestUnseen) {
				underWay++;
			}
			else if (this.elections.get(partition).isLeader() && target != null
					&& !target.equals(this.service.nodeId())) {
				moving.add(partition);
			}
		}
		// All requests of the step in a few statements; each owner's next heartbeat round
		// then hands them over in one batch per target.
		Map<String, String> requests = new LinkedHashMap<>();
		Map<String, Integer> partitions = new HashMap<>();
		for (int partition : moving) {
			if (underWay + requests.size() >= this.maxPerRound) {
				logger.debug("Partition group '{}': {} hand-overs under way; the others wait for the next step",
						this.group, underWay + requests.size());
				break;
			}
			String election = this.elections.get(partition).name();
			requests.put(election, Objects.requireNonNull(targets.get(partition)));
			partitions.put(election, partition);
		}
		if (requests.isEmpty()) {
			return;
		}
		try {
			this.service.forceLeaders(requests);
		}
		catch (RuntimeException ex) {
			logger.warn("Partition group '{}': could not hand {} partition(s) over; trying at the next step: {}",
					this.group, requests.size(), ex.toString());
			return;
		}
		requests.forEach((election, target) -> {
			int partition = partitions.get(election);
			this.requestedOnVersion.put(partition, Objects.requireNonNull(leases.get(partition)).version());
			logger.info("Partition group '{}': handing partition {} over to '{}'", this.group, partition, target);
		});
	}

}
