package io.github.dbleader.election;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessResourceFailureException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DatabaseStatus} while the node waits for its database at start-up, on a
 * fake clock.
 */
class DatabaseStatusTests {

	private final FakeClock clock = new FakeClock();

	private final DatabaseStatus status = new DatabaseStatus("a", new ElectionSettings(Duration.ofSeconds(10),
			Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(1)), this.clock);

	@Test
	void waitingNodeIsUnreachableAtOnceAndCountsTheWaitUntilPrepared() {
		assertThat(this.status.waiting()).isFalse();
		this.status.preparationFailed(new DataAccessResourceFailureException("refused"));
		assertThat(this.status.waiting()).isTrue();
		// Unreachable at once, not only after lease - guard as for a database lost later.
		assertThat(this.status.reachable()).isFalse();
		this.clock.advance(Duration.ofSeconds(3));
		this.status.preparationFailed(new DataAccessResourceFailureException("refused"));
		this.clock.advance(Duration.ofSeconds(2));
		assertThat(this.status.unreachableFor()).isEqualTo(Duration.ofSeconds(5));
		this.status.prepared();
		assertThat(this.status.waiting()).isFalse();
		assertThat(this.status.reachable()).isTrue();
		assertThat(this.status.unreachableFor()).isNull();
	}

	@Test
	void preparedAtTheFirstAttemptNeverWaits() {
		this.status.prepared();
		assertThat(this.status.waiting()).isFalse();
		assertThat(this.status.reachable()).isTrue();
		assertThat(this.status.unreachableFor()).isNull();
	}

}
