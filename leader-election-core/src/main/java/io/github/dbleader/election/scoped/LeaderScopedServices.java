package io.github.dbleader.election.scoped;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.partition.PartitionGroup;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link LeaderScopedService}s while this node leads their elections or owns their
 * partitions: give it to the {@link ElectionService} as its listener (alone, or among its
 * listeners), then {@link #start(ElectionService, Map) start} it with the services.
 *
 * <p>
 * On a grant it starts each service of the election (or of the partition's group) on a
 * thread of its own; on a revocation it stops them: it cancels their contexts, calls
 * their {@link LeaderScopedService#stop stop}, interrupts their threads, and waits for
 * the threads at most the stop timeout (all of an election's services together), then
 * leaves a thread that still runs behind with a WARN. The revocation's listener callback
 * waits for that: the callbacks after it (events of this node's other elections) wait
 * too, but never the heartbeat, and a new grant of the election starts the services only
 * once the old run stopped. {@link #stop()} stops every service, before the election
 * service stops, so that they end while this node still leads.
 */
public final class LeaderScopedServices implements LeadershipListener {

	private static final Logger logger = LoggerFactory.getLogger(LeaderScopedServices.class);

	private final Duration stopTimeout;

	private final Object monitor = new Object();

	/**
	 * The runs under way, by election name; every run of an election has the same term.
	 */
	private final Map<String, List<ScopedRun>> runs = new HashMap<>();

	private List<Registration> registrations = List.of();

	private @Nullable ElectionService electionService;

	private volatile boolean running;

	/**
	 * Create a runner that starts nothing before {@link #start(ElectionService, Map)}.
	 * @param stopTimeout how long stopping the services of an election waits for their
	 * threads after the signal and the interrupt
	 */
	public LeaderScopedServices(Duration stopTimeout) {
		Objects.requireNonNull(stopTimeout, "stopTimeout must not be null");
		if (stopTimeout.isNegative()) {
			throw new IllegalArgumentException("stopTimeout must not be negative: " + stopTimeout);
		}
		this.stopTimeout = stopTimeout;
	}

	/**
	 * Start: join the election of every service that follows one, start the services of
	 * what this node leads or owns already, and those of every grant from now on. Does
	 * nothing if started.
	 * @param electionService the node's election service, whose listener includes this
	 * runner
	 * @param services the services by name (the name is for the log and the thread)
	 * @throws IllegalArgumentException if a service names an invalid election
	 */
	public void start(ElectionService electionService, Map<String, ? extends LeaderScopedService> services) {
		synchronized (this.monitor) {
			if (this.running) {
				return;
			}
			List<Registration> registered = new ArrayList<>();
			new LinkedHashMap<>(services).forEach((name, service) -> {
				String group = service.partitionGroup();
				String election = (group != null) ? null : service.election();
				if (election != null) {
					join(electionService, election, name);
				}
				else if (electionService.elections()
					.stream()
					.noneMatch((joined) -> group.equals(PartitionGroup.groupOf(joined.name())))) {
					logger.warn("Leader-scoped service '{}' follows partition group '{}', which this node has not "
							+ "joined: it starts once this node owns one of its partitions", name, group);
				}
				registered.add(new Registration(name, service, election, group));
			});
			this.registrations = List.copyOf(registered);
			this.electionService = electionService;
			this.running = true;
			for (Election election : electionService.elections()) {
				long term = election.term();
				if (term >= 0) {
					startRuns(election.name(), term);
				}
			}
		}
	}

	private static void join(ElectionService electionService, String election, String service) {
		try {
			electionService.election(election);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"Leader-scoped service '" + service + "' names an invalid election: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Stop every service that runs, as a revocation does (all of them within one stop
	 * timeout), and start none until started again.
	 */
	public void stop() {
		synchronized (this.monitor) {
			this.running = false;
			List<ScopedRun> all = new ArrayList<>();
			this.runs.values().forEach(all::addAll);
			this.runs.clear();
			stop(all, RevocationReason.SHUTDOWN);
		}
	}

	/**
	 * @return whether started and not stopped
	 */
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public void granted(String election, String nodeId, long term) {
		synchronized (this.monitor) {
			if (!this.running) {
				return;
			}
			List<ScopedRun> current = this.runs.get(election);
			if (current != null) {
				if (current.get(0).term() >= term) {
					// Started already: found led when this runner started.
					return;
				}
				stop(this.runs.remove(election), RevocationReason.EXPIRED);
			}
			startRuns(election, term);
		}
	}

	@Override
	public void revoked(String election, String nodeId, long term, RevocationReason reason) {
		synchronized (this.monitor) {
			List<ScopedRun> current = this.runs.get(election);
			if (current != null && current.get(0).term() <= term) {
				stop(this.runs.remove(election), reason);
			}
		}
	}

	/**
	 * Start the services of an election or partition that this node leads with the term.
	 */
	private void startRuns(String election, long term) {
		ElectionService service = this.electionService;
		Election joined = (service != null) ? service.findElection(election) : null;
		if (joined == null) {
			return;
		}
		String group = PartitionGroup.groupOf(election);
		int partition = (group != null) ? Integer.parseInt(election.substring(election.lastIndexOf(':') + 1))
				: LeadershipContext.NO_PARTITION;
		List<ScopedRun> started = new ArrayList<>();
		for (Registration registration : this.registrations) {
			if (registration.follows(election, group)) {
				ScopedRun run = new ScopedRun(registration.name(), registration.service(),
						new LeadershipContext(joined, term, registration.group(), partition));
				started.add(run);
				run.start();
			}
		}
		if (!started.isEmpty()) {
			this.runs.put(election, started);
		}
	}

	/** Signal every run, then wait for them all until one deadline. */
	private void stop(List<ScopedRun> stopping, RevocationReason reason) {
		stopping.forEach(ScopedRun::signal);
		long deadline = System.nanoTime() + this.stopTimeout.toNanos();
		stopping.forEach((run) -> run.awaitStopped(deadline, reason));
	}

	/** A service and what it follows: an election, or the partitions of a group. */
	private record Registration(String name, LeaderScopedService service, @Nullable String election,
			@Nullable String group) {

		boolean follows(String electionName, @Nullable String groupOfElection) {
			return (this.group != null) ? this.group.equals(groupOfElection) : electionName.equals(this.election);
		}

	}

}
