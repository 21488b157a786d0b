package io.github.dbleader.election;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The watchdog's passes over the beliefs of a node ({@link AnnouncedBeliefs}): it looks
 * at them only once the earliest may have ended, and then ends each one whose deadline
 * passed, at the first pass at or after it. Lease L = 10 s, renew interval R = 2 s, so a
 * belief lasts 8 s after the refresh that grants or extends it.
 */
class AnnouncedBeliefsTests {

	private static final Duration R = Duration.ofSeconds(2);

	private static final Duration BELIEF = Duration.ofSeconds(8);

	/** How often the service runs the watchdog: a quarter renew interval. */
	private static final Duration PASS = R.dividedBy(4);

	private final InMemoryLeaseDatabase repository = new InMemoryLeaseDatabase();

	private final FakeNode a = new FakeNode("a", "a-1", this.repository,
			ElectionSettings.of(Duration.ofSeconds(10), R));

	private final List<String> names = IntStream.range(0, 50).mapToObj((i) -> "e" + i).toList();

	@Test
	void passesLookOnlyOnceTheEarliestBeliefMayHaveEndedAndEndItThen() {
		this.names.forEach(this.a::join);
		this.a.tick();
		assertThat(this.names).allMatch(this.a::leads);
		assertThat(this.a.beliefs.size()).isEqualTo(this.names.size());
		assertThat(this.a.checkDeadlines()).as("the first pass learns when the beliefs end").isTrue();
		int looked = 0;
		// No refresh from now on: the beliefs end 8 s after the one that granted them.
		for (Duration elapsed = PASS; elapsed.compareTo(BELIEF) < 0; elapsed = elapsed.plus(PASS)) {
			elapse(PASS);
			looked += this.a.checkDeadlines() ? 1 : 0;
			assertThat(this.names).allMatch(this.a::leads);
		}
		assertThat(looked).as("passes that looked before the earliest end").isZero();
		elapse(PASS);
		assertThat(this.a.checkDeadlines()).isTrue();
		assertThat(this.a.listener.events).filteredOn((event) -> event.startsWith("revoked"))
			.as("every belief ended at the first pass after its deadline")
			.hasSize(this.names.size());
		assertThat(this.a.beliefs.size()).isZero();
	}

	@Test
	void anExtendedBeliefIsLookedAtOnceAtItsOldEndAndThenNotUntilItsNewOne() {
		this.a.join("x");
		this.a.tick();
		assertThat(this.a.checkDeadlines()).isTrue();
		elapse(R);
		this.a.tick();
		// Extended to 8 s after this refresh; the watchdog still counts on the first end.
		elapse(BELIEF.minus(R));
		assertThat(this.a.checkDeadlines()).as("at the first end").isTrue();
		assertThat(this.a.leads("x")).isTrue();
		elapse(R.minus(PASS));
		assertThat(this.a.checkDeadlines()).as("before the new end").isFalse();
		elapse(PASS);
		assertThat(this.a.checkDeadlines()).isTrue();
		assertThat(this.a.leads("x")).isFalse();
		assertThat(this.a.listener.events).last().asString().startsWith("revoked a");
	}

	@Test
	void aBeliefGrantedWhileNoneLastedIsEndedAtItsDeadline() {
		assertThat(this.a.checkDeadlines()).as("nothing to look at for a while").isTrue();
		elapse(PASS);
		assertThat(this.a.checkDeadlines()).isFalse();
		this.a.join("x");
		this.a.tick();
		elapse(BELIEF.minus(PASS));
		assertThat(this.a.checkDeadlines()).isFalse();
		assertThat(this.a.leads("x")).isTrue();
		elapse(PASS);
		assertThat(this.a.checkDeadlines()).as("the grant brought the next pass forward").isTrue();
		assertThat(this.a.listener.events).endsWith("granted a " + this.a.listener.grantedTerms.get(0),
				"revoked a " + this.a.listener.grantedTerms.get(0) + " EXPIRED");
	}

	private void elapse(Duration duration) {
		this.a.clock.advance(duration);
		this.repository.advanceDatabaseClock(duration);
	}

}
