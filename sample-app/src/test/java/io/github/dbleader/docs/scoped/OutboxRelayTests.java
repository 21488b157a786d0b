package io.github.dbleader.docs.scoped;

import java.time.Duration;
import java.util.List;

import io.github.dbleader.autoconfigure.test.AutoConfigureLeaderElectionTest;
import io.github.dbleader.autoconfigure.test.LeaderElectionTestControl;
import io.github.dbleader.election.RevocationReason;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The leader-scoped service of docs/how-to/leader-scoped-services.md under the test
 * control: it relays the outbox with the granted term, relays nothing once its leadership
 * is revoked, and relays again with the next term.
 */
@SpringBootTest(properties = "spring.datasource.url=jdbc:h2:mem:docs-scoped;DB_CLOSE_DELAY=-1")
@AutoConfigureLeaderElectionTest
class OutboxRelayTests {

	private static final Duration WAIT = Duration.ofSeconds(5);

	@Autowired
	LeaderElectionTestControl leaderElection;

	@Autowired
	JdbcTemplate jdbc;

	@BeforeEach
	void createOutbox() {
		this.jdbc.execute("CREATE TABLE IF NOT EXISTS outbox (id INT, relayed_by_term BIGINT)");
		this.jdbc.update("DELETE FROM outbox");
	}

	@Test
	void relaysWithTheGrantedTermOnlyWhileItLeads() {
		this.jdbc.update("INSERT INTO outbox (id) VALUES (1)");
		this.leaderElection.grant("outbox", 5);
		await().atMost(WAIT).until(() -> relayedByTerm().equals(List.of(5L)));

		this.leaderElection.revoke("outbox", RevocationReason.REELECTION);
		this.jdbc.update("INSERT INTO outbox (id) VALUES (2)");
		await().during(Duration.ofMillis(500))
			.atMost(WAIT)
			.until(() -> this.jdbc.queryForObject("SELECT COUNT(*) FROM outbox WHERE relayed_by_term IS NULL",
					Integer.class) == 1);

		this.leaderElection.grant("outbox", 6);
		await().atMost(WAIT).until(() -> relayedByTerm().equals(List.of(5L, 6L)));
	}

	private List<Long> relayedByTerm() {
		return this.jdbc.queryForList("SELECT relayed_by_term FROM outbox ORDER BY id", Long.class);
	}

	@SpringBootApplication
	static class OutboxApplication {

	}

}
