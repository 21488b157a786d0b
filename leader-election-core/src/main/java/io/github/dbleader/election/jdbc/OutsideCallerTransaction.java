package io.github.dbleader.election.jdbc;

import java.util.List;
import java.util.function.Supplier;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs a repository's statements apart from the calling thread's transaction
 * synchronization. A {@code JdbcTemplate} called from a method with a transaction open
 * (any transaction manager's, on any data source) binds the connection it takes to that
 * transaction until it ends, so that a long {@code @Transactional} method that takes a
 * cluster lock would keep a connection of the small pool the heartbeat renews through for
 * its whole length (I8). Suspended here as Spring's transaction managers suspend them,
 * each statement's connection goes back to its pool as soon as the statement is done.
 */
final class OutsideCallerTransaction {

	private OutsideCallerTransaction() {
	}

	static <T> T run(Supplier<T> statements) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return statements.get();
		}
		// All that a transaction manager's suspension takes off the thread and puts back:
		// a
		// transaction of the repository's own that runs meanwhile clears it when it ends.
		List<TransactionSynchronization> suspended = TransactionSynchronizationManager.getSynchronizations();
		String name = TransactionSynchronizationManager.getCurrentTransactionName();
		boolean readOnly = TransactionSynchronizationManager.isCurrentTransactionReadOnly();
		Integer isolation = TransactionSynchronizationManager.getCurrentTransactionIsolationLevel();
		boolean active = TransactionSynchronizationManager.isActualTransactionActive();
		for (TransactionSynchronization synchronization : suspended) {
			synchronization.suspend();
		}
		TransactionSynchronizationManager.clear();
		try {
			return statements.get();
		}
		finally {
			if (TransactionSynchronizationManager.isSynchronizationActive()) {
				TransactionSynchronizationManager.clear();
			}
			TransactionSynchronizationManager.initSynchronization();
			TransactionSynchronizationManager.setCurrentTransactionName(name);
			TransactionSynchronizationManager.setCurrentTransactionReadOnly(readOnly);
			TransactionSynchronizationManager.setCurrentTransactionIsolationLevel(isolation);
			TransactionSynchronizationManager.setActualTransactionActive(active);
			for (TransactionSynchronization synchronization : suspended) {
				synchronization.resume();
				TransactionSynchronizationManager.registerSynchronization(synchronization);
			}
		}
	}

}
