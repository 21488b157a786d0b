package io.github.dbleader.autoconfigure;

import io.github.dbleader.election.ElectionService;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationListener;

/**
 * Lets this node campaign in its elections only while the application is ready
 * ({@link ReadinessState#ACCEPTING_TRAFFIC}): the {@link ElectionService} stands down
 * before it starts unless the application is ready already (Spring Boot reports it ready
 * once the context is refreshed and the runners ran), campaigns when readiness turns to
 * accepting traffic, and stands down, giving its leadership up, when readiness turns to
 * refusing traffic (which a web application's shutdown announces first). Each change is
 * logged by the service.
 */
class ReadinessCampaign
		implements ApplicationListener<AvailabilityChangeEvent<ReadinessState>>, SmartInitializingSingleton {

	private final ElectionService electionService;

	private final ApplicationAvailability availability;

	ReadinessCampaign(ElectionService electionService, ApplicationAvailability availability) {
		this.electionService = electionService;
		this.availability = availability;
	}

	@Override
	public void afterSingletonsInstantiated() {
		// Every bean exists and the election has not started (it starts with the
		// lifecycle).
		follow(this.availability.getReadinessState());
	}

	@Override
	public void onApplicationEvent(AvailabilityChangeEvent<ReadinessState> event) {
		follow(event.getState());
	}

	private void follow(ReadinessState readiness) {
		if (readiness == ReadinessState.ACCEPTING_TRAFFIC) {
			this.electionService.campaign();
		}
		else {
			this.electionService.standDown();
		}
	}

}
