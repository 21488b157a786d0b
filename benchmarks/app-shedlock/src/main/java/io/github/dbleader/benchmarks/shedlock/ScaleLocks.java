package io.github.dbleader.benchmarks.shedlock;

import java.time.Duration;
import java.time.Instant;

import io.github.dbleader.benchmarks.jobruns.BenchmarkProperties;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The scale benchmark's locks: every renew interval each node tries every one of
 * {@code bench.scale} locks ({@code lock-0}, ...) as a {@code @SchedulerLock} task would,
 * held at most for the lease and at least for half a renew interval, and releases the
 * ones it got at once (an empty task). One after the other, on the scheduler's thread, as
 * ShedLock runs scheduled tasks.
 */
@Component
@ConditionalOnExpression("${bench.scale:0} > 0")
class ScaleLocks {

	private final LockProvider lockProvider;

	private final int locks;

	private final Duration lockAtMostFor;

	private final Duration lockAtLeastFor;

	ScaleLocks(LockProvider lockProvider, BenchmarkProperties properties) {
		this.lockProvider = lockProvider;
		this.locks = properties.getScale();
		this.lockAtMostFor = properties.getLease();
		this.lockAtLeastFor = properties.getRenewInterval().dividedBy(2);
	}

	@Scheduled(fixedRateString = "${bench.renew-interval}")
	void round() {
		for (int i = 0; i < this.locks; i++) {
			this.lockProvider
				.lock(new LockConfiguration(Instant.now(), "lock-" + i, this.lockAtMostFor, this.lockAtLeastFor))
				.ifPresent(SimpleLock::unlock);
		}
	}

}
