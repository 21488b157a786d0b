package io.github.dbleader.docs.tutorial;

import io.github.dbleader.election.Election;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.NotLeaderException;
import io.github.dbleader.election.aop.LeaderOnly;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

@Component
public class ReportJob {

	private static final Logger logger = LoggerFactory.getLogger(ReportJob.class);

	private final Election election;

	private final JdbcTemplate jdbc;

	public ReportJob(ElectionService elections, JdbcTemplate jdbc) {
		this.election = elections.election("default");
		this.jdbc = jdbc;
	}

	@Scheduled(fixedDelay = 2000)
	@LeaderOnly
	public void writeReport() {
		try {
			// Committed only while this node leads with this term.
			this.election.runFenced((term) -> this.jdbc.update("INSERT INTO report_run (node_id, term) VALUES (?, ?)",
					this.election.nodeId(), term));
			logger.info("Report written by {}", this.election.nodeId());
		}
		catch (NotLeaderException ex) {
			// Leadership ended before the commit: nothing was written; the new leader
			// writes.
			logger.info("Not the leader any more: {}", ex.getMessage());
		}
	}

}
