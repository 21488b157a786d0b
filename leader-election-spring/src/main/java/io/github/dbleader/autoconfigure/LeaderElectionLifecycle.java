package io.github.dbleader.autoconfigure;

import io.github.dbleader.election.ElectionService;

import org.springframework.context.SmartLifecycle;

/**
 * Starts the {@link ElectionService} once the context is refreshed and stops it when the
 * context closes, before any bean is destroyed (so before the {@code DataSource} closes):
 * a leader releases its leases and a successor takes over within a renew interval.
 *
 * <p>
 * The phase is late: the election starts after the web server, and on shutdown it stops
 * first, before the web server's graceful shutdown, so that this node stops believing it
 * leads before the rest of the application winds down.
 */
class LeaderElectionLifecycle implements SmartLifecycle {

	/**
	 * Phase of the lifecycle: after the web server's, as Spring Integration's leader
	 * initiator.
	 */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1000;

	private final ElectionService electionService;

	private final boolean releaseOnShutdown;

	LeaderElectionLifecycle(ElectionService electionService, boolean releaseOnShutdown) {
		this.electionService = electionService;
		this.releaseOnShutdown = releaseOnShutdown;
	}

	@Override
	public void start() {
		this.electionService.start();
	}

	@Override
	public void stop() {
		if (this.releaseOnShutdown) {
			this.electionService.stop();
		}
		else {
			this.electionService.halt();
		}
	}

	@Override
	public boolean isRunning() {
		return this.electionService.isRunning();
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

}
