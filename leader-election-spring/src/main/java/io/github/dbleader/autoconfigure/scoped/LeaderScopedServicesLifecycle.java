package io.github.dbleader.autoconfigure.scoped;

import java.util.Map;
import java.util.function.Supplier;

import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.scoped.LeaderScopedService;
import io.github.dbleader.election.scoped.LeaderScopedServices;

import org.springframework.context.SmartLifecycle;

/**
 * Starts the {@link LeaderScopedServices} runner with the application's
 * {@link LeaderScopedService} beans, by bean name, once the election service runs
 * (services of what this node leads by then start at once), and stops every service
 * before the election service and the partition groups stop, so that the services end
 * while this node still leads.
 */
class LeaderScopedServicesLifecycle implements SmartLifecycle {

	/**
	 * Right after the partition groups' phase, itself right after the election service's:
	 * started after both, stopped before both.
	 */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 998;

	private final LeaderScopedServices runner;

	private final ElectionService electionService;

	private final Supplier<Map<String, LeaderScopedService>> services;

	LeaderScopedServicesLifecycle(LeaderScopedServices runner, ElectionService electionService,
			Supplier<Map<String, LeaderScopedService>> services) {
		this.runner = runner;
		this.electionService = electionService;
		this.services = services;
	}

	@Override
	public void start() {
		this.runner.start(this.electionService, this.services.get());
	}

	@Override
	public void stop() {
		this.runner.stop();
	}

	@Override
	public boolean isRunning() {
		return this.runner.isRunning();
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
