package io.github.dbleader.sample;

import io.github.dbleader.election.event.LeaderChangedEvent;
import io.github.dbleader.election.event.LeadershipGrantedEvent;
import io.github.dbleader.election.event.LeadershipRevokedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Logs every leadership change this node sees.
 */
@Component
public class LeadershipLog {

	private static final Logger logger = LoggerFactory.getLogger(LeadershipLog.class);

	@EventListener
	public void granted(LeadershipGrantedEvent event) {
		logger.info(">>> This node now leads election '{}' (term {})", event.getElection(), event.getTerm());
	}

	@EventListener
	public void revoked(LeadershipRevokedEvent event) {
		logger.info("<<< This node no longer leads election '{}' (term {}, {})", event.getElection(), event.getTerm(),
				event.getReason());
	}

	@EventListener
	public void changed(LeaderChangedEvent event) {
		logger.info("Leader of election '{}' is now '{}' (was '{}', term {})", event.getElection(),
				event.getNewLeader(), event.getPreviousLeader(), event.getTerm());
	}

}
