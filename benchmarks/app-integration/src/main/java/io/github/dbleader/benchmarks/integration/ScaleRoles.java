package io.github.dbleader.benchmarks.integration;

import java.util.ArrayList;
import java.util.List;

import io.github.dbleader.benchmarks.jobruns.BenchmarkProperties;

import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.stereotype.Component;

/**
 * The scale benchmark's roles: {@code bench.scale} roles ({@code role-0}, ...), each with
 * its own {@link LockRegistryLeaderInitiator} on the shared {@link JdbcLockRegistry}, as
 * an application with that many leader-elected roles would set them up, with the same
 * heart beat and busy wait as the job benchmark's initiator.
 */
@Component
@ConditionalOnExpression("${bench.scale:0} > 0")
class ScaleRoles implements SmartLifecycle {

	private final List<LockRegistryLeaderInitiator> initiators = new ArrayList<>();

	private volatile boolean running;

	ScaleRoles(JdbcLockRegistry lockRegistry, BenchmarkProperties properties) {
		for (int i = 0; i < properties.getScale(); i++) {
			LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(lockRegistry,
					new DefaultCandidate(properties.getNodeId(), "role-" + i));
			initiator.setHeartBeatMillis(properties.getRenewInterval().toMillis());
			initiator.setBusyWaitMillis(properties.getRenewInterval().toMillis());
			this.initiators.add(initiator);
		}
	}

	@Override
	public void start() {
		this.initiators.forEach(LockRegistryLeaderInitiator::start);
		this.running = true;
	}

	@Override
	public void stop() {
		this.initiators.forEach(LockRegistryLeaderInitiator::stop);
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

}
