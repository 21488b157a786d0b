package io.github.dbleader.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import io.github.dbleader.election.lock.LockRun;
import io.github.dbleader.election.lock.LockRunListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Passes every callback to each listener in order; a failing listener neither keeps the
 * others from being told nor fails the run.
 */
final class CompositeLockRunListener implements LockRunListener {

	private static final Logger logger = LoggerFactory.getLogger(CompositeLockRunListener.class);

	private final List<LockRunListener> listeners;

	CompositeLockRunListener(List<LockRunListener> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	@Override
	public void acquired(String name, long term) {
		each((listener) -> listener.acquired(name, term));
	}

	@Override
	public void skipped(String name) {
		each((listener) -> listener.skipped(name));
	}

	@Override
	public void ended(String name, long term, Duration heldFor) {
		each((listener) -> listener.ended(name, term, heldFor));
	}

	@Override
	public void runEnded(LockRun run) {
		each((listener) -> listener.runEnded(run));
	}

	private void each(Consumer<LockRunListener> callback) {
		for (LockRunListener listener : this.listeners) {
			try {
				callback.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock run listener " + listener + " failed", ex);
			}
		}
	}

}
