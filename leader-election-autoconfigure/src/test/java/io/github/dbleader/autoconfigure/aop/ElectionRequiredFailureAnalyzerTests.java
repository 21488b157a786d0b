package io.github.dbleader.autoconfigure.aop;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ElectionRequiredFailureAnalyzer}.
 */
class ElectionRequiredFailureAnalyzerTests {

	private final ElectionRequiredFailureAnalyzer analyzer = new ElectionRequiredFailureAnalyzer();

	@Test
	void severalDataSourcesReportTheMethodTheReasonAndEveryFix() {
		ElectionRequiredException cause = new ElectionRequiredException("com.example.Reports#send", "@LeaderOnly",
				"the context has 2 DataSource beans [orders, reports], none of them @Primary or "
						+ "@LeaderElectionDataSource, and leader-election.jdbc.url is not set",
				List.of("orders", "reports"));
		FailureAnalysis analysis = this.analyzer.analyze(new BeanCreationException("reports", "failed", cause));
		assertThat(analysis.getCause()).isSameAs(cause);
		assertThat(analysis.getDescription()).isEqualTo(String.join(System.lineSeparator(),
				"@LeaderOnly method com.example.Reports#send needs leader election, but no election could be "
						+ "configured.",
				"",
				"Reason: the context has 2 DataSource beans [orders, reports], none of them @Primary or "
						+ "@LeaderElectionDataSource, and leader-election.jdbc.url is not set.",
				"", "Without an election such methods would run on every node, so the application does not start."));
		assertThat(analysis.getAction()).isEqualTo(String.join(System.lineSeparator(), "Consider one of the following:",
				"\tMark the DataSource bean the election should use @Primary.",
				"\tOr mark it with the qualifier @LeaderElectionDataSource (the election then uses it, and your "
						+ "@Primary one stays the application's).",
				"\tSet leader-election.jdbc.url (with leader-election.jdbc.username and leader-election.jdbc.password)"
						+ " to give the election a database connection of its own.",
				"\tSet leader-election.enabled=false to run the @LeaderOnly methods on every node on purpose."));
	}

	@Test
	void noDataSourceSuggestsDefiningOne() {
		ElectionRequiredException cause = new ElectionRequiredException("com.example.Reports#send", "@LeaderOnly",
				"the context has no DataSource bean, and leader-election.jdbc.url is not set", List.of());
		FailureAnalysis analysis = this.analyzer.analyze(cause);
		assertThat(analysis.getDescription()).contains("Reason: the context has no DataSource bean");
		assertThat(analysis.getAction())
			.contains("\tDefine a DataSource (for instance with spring.datasource.url).", "leader-election.jdbc.url",
					"leader-election.enabled=false")
			.doesNotContain("@Primary", "@LeaderElectionDataSource");
	}

}
