package io.github.dbleader.docs.scoped;

import java.time.Duration;

import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.scoped.LeaderScopedService;
import io.github.dbleader.election.scoped.LeadershipContext;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

@Component
class OutboxRelay implements LeaderScopedService {

	private final JdbcTemplate jdbc;

	OutboxRelay(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	@Override
	public String election() {
		return "outbox";
	}

	@Override
	public void start(LeadershipContext context) throws InterruptedException {
		while (!context.isCancelled()) {
			try {
				// Commits only while this node leads with the context's term.
				context.runFenced((term) -> this.jdbc
					.update("UPDATE outbox SET relayed_by_term = ? WHERE relayed_by_term IS NULL", term));
			}
			catch (NotLeaderException ex) {
				return; // the term ended: the starter stops this run and starts a new one
						// on the next grant
			}
			context.awaitCancellation(Duration.ofMillis(200));
		}
	}

}
