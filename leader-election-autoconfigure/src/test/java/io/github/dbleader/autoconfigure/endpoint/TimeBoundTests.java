package io.github.dbleader.autoconfigure.endpoint;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;

import io.github.dbleader.election.UnknownCandidateException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.QueryTimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Tests for {@link TimeBound}, the wait of every endpoint's writes.
 */
class TimeBoundTests {

	private final TimeBound bound = new TimeBound("time-bound-test", 1, 1, Duration.ofMillis(100));

	private final CountDownLatch hang = new CountDownLatch(1);

	@AfterEach
	void close() {
		this.hang.countDown();
		this.bound.close();
	}

	@Test
	void aWriteTheDatabaseDoesNotAnswerFailsWithinTheTimeoutAndItsOutcomeUnknown() {
		assertTimeoutPreemptively(Duration.ofSeconds(1),
				() -> assertThatExceptionOfType(DatabaseUnavailableException.class)
					.isThrownBy(() -> this.bound.write("Release of lock 'nightly'", this::hang))
					.withMessage(
							"Release of lock 'nightly': outcome unknown, the database did not answer within 100 ms;"
									+ " it may still take effect: read before you repeat it"));
	}

	@Test
	void aWriteBeyondTheQueueFailsAtOnce() {
		this.bound.start(this::hang);
		this.bound.start(this::hang);
		assertThatExceptionOfType(DatabaseUnavailableException.class)
			.isThrownBy(() -> this.bound.write("Pin", () -> "never"))
			.withMessageContaining("too many statements to the database are pending");
	}

	@Test
	void aFailureOfTheDatabaseIsUnavailableAndAnyOtherIsThrownAsItIs() {
		assertThatExceptionOfType(DatabaseUnavailableException.class).isThrownBy(() -> this.bound.write("Pin", () -> {
			throw new QueryTimeoutException("statement timed out");
		})).withMessageContaining("the database statement failed: org.springframework.dao.QueryTimeoutException");
		assertThatExceptionOfType(UnknownCandidateException.class).isThrownBy(() -> this.bound.write("Pin", () -> {
			throw new UnknownCandidateException("default", "node-x");
		}));
		assertThat(this.bound.write("Pin", () -> "done")).isEqualTo("done");
	}

	@Test
	void workThatGoesOnPastTheTimeoutIsLeftToRun() {
		CompletableFuture<String> running = new CompletableFuture<>();
		assertThat(this.bound.within(running)).isEmpty();
		running.complete("ended");
		assertThat(this.bound.within(running)).contains("ended");
	}

	private String hang() throws InterruptedException {
		this.hang.await();
		return "late";
	}

}
