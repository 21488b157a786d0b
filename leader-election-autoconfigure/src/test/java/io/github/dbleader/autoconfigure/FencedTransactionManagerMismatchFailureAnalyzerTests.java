package io.github.dbleader.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link FencedTransactionManagerMismatchFailureAnalyzer}.
 */
class FencedTransactionManagerMismatchFailureAnalyzerTests {

	@Test
	void reportNamesTheTransactionManagerBothDataSourcesAndTheFixes() {
		FencedTransactionManagerMismatchException cause = new FencedTransactionManagerMismatchException(
				"'transactionManager'", "'orders'", "'reports'");
		FailureAnalysis analysis = new FencedTransactionManagerMismatchFailureAnalyzer()
			.analyze(new BeanCreationException("leaderElectionLeaseRepository", "failed", cause));
		assertThat(analysis.getCause()).isSameAs(cause);
		assertThat(analysis.getDescription()).isEqualTo(String.join(System.lineSeparator(),
				"Leader election cannot start: its fenced transactions would run on transaction manager "
						+ "'transactionManager', which manages DataSource 'orders', but the leases and their fence "
						+ "rows are in DataSource 'reports'.",
				"", "Reason: a fenced transaction must lock the fence row in the same transaction as the work it "
						+ "fences; on another database it would fence nothing."));
		assertThat(analysis.getAction()).isEqualTo(String.join(System.lineSeparator(), "Consider one of the following:",
				"\tDefine a transaction manager bean for DataSource 'reports' (fenced transactions use the one that "
						+ "manages the election's DataSource; keep the one of your other DataSource, marked @Primary).",
				"\tRun the election on DataSource 'orders' (mark it @LeaderElectionDataSource, or @Primary)."));
	}

}
