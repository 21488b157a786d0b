package io.github.dbleader.benchmarks.integration;

import io.github.dbleader.benchmarks.jobruns.BenchmarkProperties;
import io.github.dbleader.benchmarks.jobruns.ConditionalOnJobBenchmark;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.stereotype.Component;

/**
 * Logs the initiator's leadership events, one line per change, with the words this
 * starter's election logs them with, so that the load benchmark counts both the same way.
 */
@Component
@ConditionalOnJobBenchmark
class LeadershipLog {

	private static final Logger logger = LoggerFactory.getLogger(LeadershipLog.class);

	private final String nodeId;

	LeadershipLog(BenchmarkProperties properties) {
		this.nodeId = properties.getNodeId();
	}

	@EventListener
	void granted(OnGrantedEvent event) {
		logger.info("Role '{}': leadership granted to '{}'", event.getRole(), this.nodeId);
	}

	@EventListener
	void revoked(OnRevokedEvent event) {
		logger.info("Role '{}': leadership revoked from '{}'", event.getRole(), this.nodeId);
	}

}
