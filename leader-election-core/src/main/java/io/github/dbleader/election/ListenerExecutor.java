package io.github.dbleader.election;

import java.util.concurrent.Executor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs listener callbacks on the given executor (the service's notification thread), so
 * that a slow listener never delays the heartbeat (I9). A callback that throws, or one
 * that cannot be handed over, is logged and dropped: it must never reach the election.
 */
final class ListenerExecutor implements Executor {

	private static final Logger logger = LoggerFactory.getLogger(ListenerExecutor.class);

	private final Executor delegate;

	ListenerExecutor(Executor delegate) {
		this.delegate = delegate;
	}

	@Override
	public void execute(Runnable callback) {
		try {
			this.delegate.execute(() -> {
				try {
					callback.run();
				}
				catch (RuntimeException ex) {
					logger.warn("Leadership listener failed", ex);
				}
			});
		}
		catch (RuntimeException ex) {
			logger.warn("Could not notify leadership listener", ex);
		}
	}

}
