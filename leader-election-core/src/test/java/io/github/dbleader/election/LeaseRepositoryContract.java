package io.github.dbleader.election;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What every {@link LeaseRepository} does that the election's safety and liveness rest
 * on, written against the interface alone: creating leases, one or a batch; reading a
 * node's own; the conditions of every change of holder, single-row and batched; the
 * requests of operators; the sessions and the candidacies; the purge; the fence.
 * Subclasses run it on {@code JdbcLeaseRepository} on each database
 * ({@link JdbcLeaseRepositoryContract}: MySQL and MariaDB Connector/J on the
 * MySQL-protocol server, PostgreSQL, H2) and on the test double
 * {@link InMemoryLeaseDatabase} that the simulator and the state-machine tests run on
 * ({@link InMemoryLeaseDatabaseContractTests}): the double passes what every database
 * passes.
 *
 * <p>
 * The database clock moves only as a test moves it ({@link #advanceDatabaseClock}); on a
 * real database a little real time passes between statements as well, so every bound
 * leaves a margin of a second and no test needs the clock to stand still.
 */
abstract class LeaseRepositoryContract {

	static final Duration LEASE = Duration.ofSeconds(5);

	static final Duration MOMENT = Duration.ofMillis(1);

	/** A step of the database clock far longer than what the statements between take. */
	static final Duration SECOND = Duration.ofSeconds(1);

	private LeaseRepository repository;

	/**
	 * A repository on empty tables.
	 * @return the repository
	 */
	protected abstract LeaseRepository createRepository();

	/**
	 * Move the database clock that every statement of the repository sees from now on.
	 * @param by how far, forward if positive
	 */
	protected abstract void advanceDatabaseClock(Duration by);

	@BeforeEach
	void createTheRepository() {
		this.repository = createRepository();
	}

	LeaseRepository repository() {
		return this.repository;
	}

	/**
	 * A node joins and checks in as a whole.
	 * @param repository the repository
	 * @param nodeId the node
	 * @param elections the elections it joins
	 */
	static void joinAs(LeaseRepository repository, String nodeId, String... elections) {
		assertThat(repository.heartbeat(nodeId, nodeId + "-1", LEASE, -1)).isIn(Candidacy.HELD, Candidacy.CREATED);
		repository.join(nodeId, nodeId + "-1", List.of(elections));
	}

	private static Map<String, LeaseObservation> observations(LeaseRepository repository, String... elections) {
		Map<String, LeaseObservation> observed = new LinkedHashMap<>();
		for (String election : elections) {
			observed.put(election, LeaseObservation.of(repository.find(election).orElseThrow()));
		}
		return observed;
	}

	private static Map<String, Long> terms(LeaseRepository repository, String... elections) {
		Map<String, Long> terms = new LinkedHashMap<>();
		for (String election : elections) {
			terms.put(election, repository.find(election).orElseThrow().term());
		}
		return terms;
	}

	/**
	 * Holder, term, version and requests of each lease: what a change of holder must
	 * leave alone.
	 */
	private static Map<String, List<Object>> holders(LeaseRepository repository, String... elections) {
		Map<String, List<Object>> holders = new HashMap<>();
		for (String election : elections) {
			LeaseState lease = repository.find(election).orElseThrow();
			holders.put(election, java.util.Arrays.asList(lease.leaderId(), lease.term(), lease.version(),
					lease.handoverTo(), lease.reelectionRequested()));
		}
		return holders;
	}

	/**
	 * Each lease answered names the holder, lives, and is as a read finds it right after.
	 */
	private static void assertAnsweredAsTheyAreNow(LeaseRepository repository, List<LeaseState> answered,
			String holder) {
		assertThat(answered).allSatisfy((state) -> {
			assertThat(state.leaderId()).isEqualTo(holder);
			assertThat(state.expired()).isFalse();
			LeaseState now = repository.find(state.election()).orElseThrow();
			assertThat(List.of(state.term(), state.version())).containsExactly(now.term(), now.version());
		});
	}

	@Test
	void createAndRead() {
		LeaseRepository repository = repository();
		assertThat(repository.find("e")).isEmpty();
		assertThat(repository.create("e", "a", LEASE)).isTrue();
		assertThat(repository.create("e", "b", LEASE)).isFalse();
		LeaseState state = repository.find("e").orElseThrow();
		assertThat(state.leaderId()).isEqualTo("a");
		assertThat(state.expired()).isFalse();
		assertThat(state.sameServer()).isTrue();
		assertThat(state.expiresAt()).isAfter(state.databaseTime());
		assertThat(Duration.between(state.databaseTime(), state.expiresAt())).isLessThanOrEqualTo(LEASE);
		// Created without a session of its node: the lease lives on its own expiry.
		assertThat(state.holderVersion()).isEqualTo(-1);
		advanceDatabaseClock(LEASE);
		assertThat(repository.find("e").orElseThrow().expired()).isTrue();
	}

	/**
	 * A batch of new leases is created whole, or not at all where another node created
	 * one of them first: that lease is left as it is and never answered as this node's.
	 */
	@Test
	void createAllCreatesTheWholeBatchOrNoneOfItAndNeverTakesAnExistingLeaseForItsOwn() {
		LeaseRepository repository = repository();
		List<LeaseState> created = repository.createAll("a", List.of("e1", "e2", "e3"), LEASE);
		assertThat(created).extracting(LeaseState::election).containsExactlyInAnyOrder("e1", "e2", "e3");
		assertAnsweredAsTheyAreNow(repository, created, "a");
		assertThat(repository.createAll("a", List.of(), LEASE)).isEmpty();

		// b created e5 after a's read showed that e5 had no row.
		assertThat(repository.create("e5", "b", LEASE)).isTrue();
		Map<String, List<Object>> before = holders(repository, "e5");
		assertThat(repository.createAll("a", List.of("e4", "e5", "e6"), LEASE)).isEmpty();
		assertThat(repository.find("e4")).isEmpty();
		assertThat(repository.find("e6")).isEmpty();
		assertThat(holders(repository, "e5")).isEqualTo(before);
	}

	@Test
	void takeOverOnlyExpiredObservedVersionWithGreaterTerm() {
		LeaseRepository repository = repository();
		repository.create("e", "a", SECOND);
		LeaseState state = repository.find("e").orElseThrow();
		LeaseObservation observed = LeaseObservation.of(state);
		assertThat(repository.takeOver("e", "b", observed, LEASE)).isFalse();
		advanceDatabaseClock(SECOND);
		assertThat(repository.find("e").orElseThrow().expired()).isTrue();
		assertThat(repository.takeOver("e", "b", new LeaseObservation(state.version() - 1, "a", -1, false), LEASE))
			.isFalse();
		assertThat(repository.takeOver("e", "b", LeaseObservation.vacant(), LEASE)).isFalse();
		assertThat(repository.takeOver("e", "b", observed, LEASE)).isTrue();
		LeaseState taken = repository.find("e").orElseThrow();
		assertThat(taken.leaderId()).isEqualTo("b");
		assertThat(taken.term()).isGreaterThan(state.term());
		assertThat(repository.takeOver("missing", "b", LeaseObservation.vacant(), LEASE)).isFalse();
	}

	/**
	 * Each lease of a batched take-over is taken only under the single-row take-over's
	 * conditions with its own observation, and the answer is exactly the leases this call
	 * took: not one handed to the node meanwhile.
	 */
	@Test
	void takeOverAllTakesEachLeaseOnlyUnderItsOwnConditionsAndAnswersExactlyThoseItTook() {
		LeaseRepository repository = repository();
		List<String> elections = List.of("e1", "e2", "e3", "e4", "e5", "e6");
		for (String election : elections) {
			assertThat(repository.create(election, "a", MOMENT)).isTrue();
		}
		advanceDatabaseClock(SECOND);
		Map<String, LeaseObservation> observed = observations(repository, elections.toArray(String[]::new));
		long e1Term = repository.find("e1").orElseThrow().term();
		// After b observed them, before its batch: c takes e2 over and a re-acquires e3,
		// each for a moment only (run out again, at another version); a gives e4 and e6
		// up (vacant: taken at any version), and an operator asks for e6 to go to c; a
		// hands e5 to b.
		assertThat(repository.takeOver("e2", "c", observed.get("e2"), MOMENT)).isTrue();
		assertThat(repository.reacquire("e3", "a", repository.find("e3").orElseThrow().term(), MOMENT)).isTrue();
		for (String vacant : List.of("e4", "e6")) {
			assertThat(repository.yield(vacant, "a", repository.find(vacant).orElseThrow().term())).isTrue();
			observed.put(vacant, LeaseObservation.vacant());
		}
		assertThat(repository.requestHandover("e6", "c")).isTrue();
		assertThat(repository.handOver("e5", "a", repository.find("e5").orElseThrow().term(), "b", LEASE)).isTrue();
		advanceDatabaseClock(SECOND);
		Map<String, List<Object>> before = holders(repository, "e2", "e3", "e5", "e6");

		List<LeaseState> taken = repository.takeOverAll("b", observed, LEASE);

		assertThat(taken).extracting(LeaseState::election).containsExactlyInAnyOrder("e1", "e4");
		assertAnsweredAsTheyAreNow(repository, taken, "b");
		assertThat(repository.find("e1").orElseThrow().term()).isGreaterThan(e1Term);
		assertThat(holders(repository, "e2", "e3", "e5", "e6")).isEqualTo(before);
		assertThat(repository.takeOverAll("b", Map.of(), LEASE)).isEmpty();
	}

	@Test
	void yieldMakesVacantButKeepsYielderOut() {
		LeaseRepository repository = repository();
		repository.create("e", "a", LEASE);
		LeaseState state = repository.find("e").orElseThrow();
		assertThat(repository.yield("e", "b", state.term())).isFalse();
		assertThat(repository.yield("e", "a", state.term() - 1)).isFalse();
		assertThat(repository.yield("e", "a", state.term())).isTrue();
		LeaseState vacant = repository.find("e").orElseThrow();
		assertThat(vacant.vacant()).isTrue();
		assertThat(vacant.expired()).isTrue();
		assertThat(vacant.yieldedBy()).isEqualTo("a");
		assertThat(repository.takeOver("e", "a", LeaseObservation.vacant(), LEASE)).isFalse();
		assertThat(repository.takeOver("e", "b", LeaseObservation.vacant(), LEASE)).isTrue();
		assertThat(repository.find("e").orElseThrow().term()).isGreaterThan(state.term());
	}

	/**
	 * The node that gave a lease up is kept out of it for one lease, the lease it takes
	 * it with.
	 */
	@Test
	void yielderMayTakeTheLeaseAgainALeaseAfterGivingItUp() {
		LeaseRepository repository = repository();
		repository.create("e", "a", LEASE);
		assertThat(repository.yield("e", "a", repository.find("e").orElseThrow().term())).isTrue();
		advanceDatabaseClock(LEASE.minus(SECOND));
		assertThat(repository.takeOverAll("a", Map.of("e", LeaseObservation.vacant()), LEASE)).isEmpty();
		advanceDatabaseClock(SECOND);
		assertThat(repository.takeOverAll("a", Map.of("e", LeaseObservation.vacant()), LEASE)).singleElement()
			.satisfies((taken) -> assertThat(taken.leaderId()).isEqualTo("a"));
	}

	/**
	 * A hand-over an operator asked for keeps every other node out of the lease for one
	 * lease after it expired, single-row and batched; its target may take it at once.
	 */
	@Test
	void pendingHandOverKeepsOthersOutForALeaseAfterExpiryButNotItsTarget() {
		LeaseRepository repository = repository();
		for (String election : List.of("e1", "e2")) {
			assertThat(repository.create(election, "a", LEASE)).isTrue();
			assertThat(repository.requestHandover(election, "b")).isTrue();
		}
		advanceDatabaseClock(LEASE);
		Map<String, LeaseObservation> observed = observations(repository, "e1", "e2");
		assertThat(repository.find("e1").orElseThrow().expired()).isTrue();
		assertThat(repository.takeOver("e1", "c", observed.get("e1"), LEASE)).isFalse();
		assertThat(repository.takeOverAll("c", observed, LEASE)).isEmpty();
		assertThat(repository.takeOver("e2", "b", observed.get("e2"), LEASE)).isTrue();
		advanceDatabaseClock(LEASE);
		assertThat(repository.takeOverAll("c", Map.of("e1", observed.get("e1")), LEASE)).singleElement()
			.satisfies((taken) -> {
				assertThat(taken.leaderId()).isEqualTo("c");
				assertThat(taken.handoverTo()).isNull();
			});
	}

	/**
	 * Batched hand-overs, yields and re-acquires change each lease only with its own
	 * term, and answer exactly the leases they changed; so do the single-row ones.
	 */
	@Test
	void handOverYieldAndReacquireChangeEachLeaseOnlyWithItsOwnTerm() {
		LeaseRepository repository = repository();
		for (String election : List.of("h1", "h2", "y1", "y2", "r1", "r2")) {
			assertThat(repository.create(election, "a", LEASE)).isTrue();
		}
		Map<String, Long> terms = terms(repository, "h1", "h2", "y1", "y2", "r1", "r2");
		// Meanwhile h2 and r2 were re-acquired (a new term), and y2 went to c.
		assertThat(repository.reacquire("h2", "a", terms.get("h2"), LEASE)).isTrue();
		assertThat(repository.reacquire("r2", "a", terms.get("r2"), LEASE)).isTrue();
		assertThat(repository.handOver("y2", "a", terms.get("y2"), "c", LEASE)).isTrue();
		Map<String, List<Object>> moved = holders(repository, "h2", "r2", "y2");

		List<LeaseState> handed = repository.handOverAll("a", Map.of("h1", terms.get("h1"), "h2", terms.get("h2")), "b",
				LEASE);
		assertThat(handed).singleElement().satisfies((state) -> {
			assertThat(state.election()).isEqualTo("h1");
			assertThat(state.leaderId()).isEqualTo("b");
			assertThat(state.term()).isGreaterThan(terms.get("h1"));
			assertThat(state.expired()).isFalse();
		});
		List<LeaseState> yielded = repository.yieldAll("a", Map.of("y1", terms.get("y1"), "y2", terms.get("y2")));
		assertThat(yielded).singleElement().satisfies((state) -> {
			assertThat(state.election()).isEqualTo("y1");
			assertThat(state.vacant()).isTrue();
			assertThat(state.yieldedBy()).isEqualTo("a");
		});
		List<LeaseState> reacquired = repository.reacquireAll("a", Map.of("r1", terms.get("r1"), "r2", terms.get("r2")),
				LEASE);
		assertThat(reacquired).singleElement().satisfies((state) -> {
			assertThat(state.election()).isEqualTo("r1");
			assertThat(state.leaderId()).isEqualTo("a");
			assertThat(state.term()).isGreaterThan(terms.get("r1"));
		});
		assertThat(repository.handOver("h2", "a", terms.get("h2"), "b", LEASE)).isFalse();
		assertThat(repository.yield("y2", "a", terms.get("y2"))).isFalse();
		assertThat(repository.reacquire("r2", "a", terms.get("r2"), LEASE)).isFalse();
		assertThat(repository.handOver("h1", "a", handed.get(0).term(), "c", LEASE)).as("a holds it no more").isFalse();
		assertThat(holders(repository, "h2", "r2", "y2")).isEqualTo(moved);
		assertThat(repository.handOverAll("a", Map.of(), "b", LEASE)).isEmpty();
	}

	@Test
	void aBatchedHandOverChangesNothingWhereAnotherServerAnswersThanTheOneItWasDecidedOn() {
		LeaseRepository repository = repository();
		assertThat(repository.create("h1", "a", LEASE)).isTrue();
		LeaseState held = repository.find("h1").orElseThrow();
		assertThat(held.server()).as("the server that answers, as a read names it").isNotNull();
		assertThat(repository.handOverAll("a", Map.of("h1", held.term()), "b", LEASE, held.server() + "-before"))
			.as("decided on another server's read")
			.isEmpty();
		assertThat(repository.find("h1").orElseThrow()).satisfies((state) -> {
			assertThat(state.leaderId()).isEqualTo("a");
			assertThat(state.term()).isEqualTo(held.term());
			assertThat(state.version()).isEqualTo(held.version());
		});
		assertThat(repository.handOverAll("a", Map.of("h1", held.term()), "b", LEASE, held.server())).singleElement()
			.satisfies((state) -> assertThat(state.leaderId()).isEqualTo("b"));
	}

	@Test
	void handoverAndReelectionRequestsAreRecordedForTheHolderToCarryOut() {
		LeaseRepository repository = repository();
		repository.create("e", "a", LEASE);
		long term = repository.find("e").orElseThrow().term();
		assertThat(repository.requestHandover("e", "b")).isTrue();
		assertThat(repository.find("e").orElseThrow().handoverTo()).isEqualTo("b");
		assertThat(repository.handOver("e", "a", term, "b", LEASE)).isTrue();
		LeaseState handed = repository.find("e").orElseThrow();
		assertThat(handed.leaderId()).isEqualTo("b");
		assertThat(handed.handoverTo()).isNull();
		assertThat(handed.term()).isGreaterThan(term);
		assertThat(repository.requestReelection("e")).isTrue();
		assertThat(repository.find("e").orElseThrow().reelectionRequested()).isTrue();
		assertThat(repository.reacquire("e", "b", handed.term(), LEASE)).isTrue();
		LeaseState reacquired = repository.find("e").orElseThrow();
		assertThat(reacquired.term()).isGreaterThan(handed.term());
		// A request recorded after the holder decided to re-acquire stays for it to carry
		// out.
		assertThat(reacquired.reelectionRequested()).isTrue();
		assertThat(repository.requestHandover("e", "a")).isTrue();
		assertThat(repository.reacquireAll("b", Map.of("e", reacquired.term()), LEASE)).singleElement()
			.satisfies((state) -> assertThat(state.handoverTo()).isEqualTo("a"));
		// Asked to lead while leading, the holder takes a new term, which carries the
		// request out.
		assertThat(repository.requestHandover("e", "b")).isTrue();
		long term2 = repository.find("e").orElseThrow().term();
		assertThat(repository.reacquire("e", "b", term2, LEASE)).isTrue();
		assertThat(repository.find("e").orElseThrow().handoverTo()).isNull();
		// Nothing to record where there is no lease, and no re-election without a leader.
		assertThat(repository.requestHandover("missing", "b")).isFalse();
		assertThat(repository.requestReelection("missing")).isFalse();
		assertThat(repository.yield("e", "b", repository.find("e").orElseThrow().term())).isTrue();
		assertThat(repository.requestReelection("e")).isFalse();
	}

	/**
	 * Hand-over requests of many leases are recorded only where the node still holds the
	 * lease.
	 */
	@Test
	void handOverRequestsOfManyLeasesAreRecordedOnlyWhereTheNodeStillHoldsThem() {
		LeaseRepository repository = repository();
		for (String election : List.of("e1", "e2", "e3")) {
			assertThat(repository.create(election, "a", LEASE)).isTrue();
		}
		assertThat(repository.handOver("e3", "a", repository.find("e3").orElseThrow().term(), "c", LEASE)).isTrue();
		Map<String, List<Object>> e3 = holders(repository, "e3");

		assertThat(repository.requestHandoverAll("a", Map.of("e1", "b", "e2", "c", "e3", "b", "missing", "b")))
			.isEqualTo(2);

		assertThat(repository.find("e1").orElseThrow().handoverTo()).isEqualTo("b");
		assertThat(repository.find("e2").orElseThrow().handoverTo()).isEqualTo("c");
		assertThat(holders(repository, "e3")).isEqualTo(e3);
		assertThat(repository.find("missing")).isEmpty();
	}

	/**
	 * A candidate's requests for leases are recorded only where the holder still holds
	 * the lease and no request is pending, and an operator's request or re-election is
	 * never replaced.
	 */
	@Test
	void aCandidatesRequestsForLeasesAreRecordedOnlyWhereTheHolderHoldsThemAndNoRequestIsPending() {
		LeaseRepository repository = repository();
		for (String election : List.of("e1", "e2", "e3", "e4")) {
			assertThat(repository.create(election, "a", LEASE)).isTrue();
		}
		assertThat(repository.requestHandover("e2", "c")).isTrue();
		assertThat(repository.requestReelection("e3")).isTrue();
		assertThat(repository.handOver("e4", "a", repository.find("e4").orElseThrow().term(), "c", LEASE)).isTrue();
		long version = repository.find("e1").orElseThrow().version();

		assertThat(repository.askToLead("b", "a", List.of("e1", "e2", "e3", "e4", "missing"))).isEqualTo(1);

		LeaseState e1 = repository.find("e1").orElseThrow();
		assertThat(e1.handoverTo()).isEqualTo("b");
		assertThat(e1.leaderId()).isEqualTo("a");
		assertThat(e1.version()).isGreaterThan(version);
		assertThat(repository.find("e2").orElseThrow().handoverTo()).isEqualTo("c");
		assertThat(repository.find("e3").orElseThrow().reelectionRequested()).isTrue();
		assertThat(repository.find("e3").orElseThrow().handoverTo()).isNull();
		assertThat(repository.find("e4").orElseThrow().handoverTo()).isNull();
		// Asked again: the request is pending.
		assertThat(repository.askToLead("c", "a", List.of("e1"))).isZero();
		assertThat(repository.find("e1").orElseThrow().handoverTo()).isEqualTo("b");
	}

	/**
	 * The rank of the instance whose session keeps a lease alive comes with the lease, as
	 * every read answers it; a lease without a live session has none.
	 */
	@Test
	void theRankOfTheHoldersInstanceComesWithItsLeases() {
		LeaseRepository repository = repository();
		assertThat(repository.heartbeat("a", "a-1", "1.10.0", LEASE, -1)).isEqualTo(Candidacy.CREATED);
		repository.join("a", "a-1", List.of("e1", "e2"));
		assertThat(repository.createAll("a", List.of("e1", "e2"), LEASE)).hasSize(2);
		assertThat(repository.heartbeat("b", "b-1", "2", LEASE, -1)).isEqualTo(Candidacy.CREATED);
		repository.join("b", "b-1", List.of("e1"));
		// A refresh keeps the rank the row was written with.
		assertThat(repository.heartbeat("a", "a-1", "1.10.0", LEASE, -1)).isEqualTo(Candidacy.HELD);

		assertThat(repository.find("e1").orElseThrow().holderRank()).isEqualTo("1.10.0");
		assertThat(repository.findAll("b", "b-1")).singleElement()
			.satisfies((lease) -> assertThat(lease.holderRank()).isEqualTo("1.10.0"));
		assertThat(repository.readAll("a", "a-1").lease("e2").holderRank()).isEqualTo("1.10.0");
		assertThat(repository.readAll("b", "b-1").lease("e1").holderRank()).isEqualTo("1.10.0");
		assertThat(repository.yield("e2", "a", repository.find("e2").orElseThrow().term())).isTrue();
		assertThat(repository.find("e2").orElseThrow().holderRank()).isNull();
	}

	@Test
	void leasesLiveOnTheSessionOfTheInstanceThatAcquiredThemWhichTheRefreshAloneRenews() {
		LeaseRepository repository = repository();
		Duration session = LEASE;
		assertThat(repository.heartbeat("a", "a-1", session, -1)).isEqualTo(Candidacy.CREATED);
		// Their own expiry is over at once: only the session keeps them.
		assertThat(repository.create("e1", "a", MOMENT)).isTrue();
		assertThat(repository.createAll("a", List.of("e2"), MOMENT)).singleElement()
			.satisfies((lease) -> assertThat(lease.expired()).isFalse());
		advanceDatabaseClock(SECOND);
		LeaseState before = repository.find("e1").orElseThrow();
		assertThat(before.expired()).isFalse();
		assertThat(before.holderVersion()).isNotNegative();
		assertThat(before.expiresAt()).isAfter(before.databaseTime());

		for (int refresh = 1; refresh <= 3; refresh++) {
			assertThat(repository.heartbeat("a", "a-1", session, -1)).isEqualTo(Candidacy.HELD);
			LeaseState after = repository.find("e1").orElseThrow();
			assertThat(after.holderVersion()).isEqualTo(before.holderVersion() + refresh);
			assertThat(List.of(after.version(), after.term())).containsExactly(before.version(), before.term());
		}
		// A hand-over leaves the lease without a session until its new holder re-acquires
		// it.
		assertThat(repository.handOver("e2", "a", repository.find("e2").orElseThrow().term(), "b", LEASE)).isTrue();
		assertThat(repository.find("e2").orElseThrow().holderVersion()).isEqualTo(-1);

		// The session runs out without its refresh.
		advanceDatabaseClock(session);
		assertThat(repository.find("e1").orElseThrow().expired()).isTrue();
		// Another instance with the node id does not keep the earlier one's leases alive:
		// their session ended at its last version, which a follower's watch goes on with.
		LeaseState lastRefreshed = repository.find("e1").orElseThrow();
		assertThat(repository.heartbeat("a", "a-2", session, watched(repository, "a"))).isEqualTo(Candidacy.INHERITED);
		assertThat(repository.heartbeat("a", "a-2", session, -1)).isEqualTo(Candidacy.HELD);
		LeaseState inherited = repository.find("e1").orElseThrow();
		assertThat(inherited.expired()).isTrue();
		assertThat(inherited.sessionEnded()).isTrue();
		assertThat(inherited.holderVersion()).isEqualTo(lastRefreshed.holderVersion());
		assertThat(LeaseObservation.of(inherited).unchangedSince(LeaseObservation.of(lastRefreshed))).isTrue();
	}

	/**
	 * Every acquiring method ties the lease to the session of the instance whose
	 * heartbeat last held the node's row through the repository: it lives while that
	 * session does. A hand-over leaves it without one, and so does an acquisition after
	 * the instance left.
	 */
	@Test
	void acquiredLeasesLiveOnTheAcquirersSession() {
		LeaseRepository repository = repository();
		assertThat(repository.create("t1", "a", MOMENT)).isTrue();
		assertThat(repository.create("t2", "a", MOMENT)).isTrue();
		assertThat(repository.heartbeat("b", "b-1", LEASE, -1)).isEqualTo(Candidacy.CREATED);
		assertThat(repository.create("c1", "b", MOMENT)).isTrue();
		assertThat(repository.createAll("b", List.of("c2"), MOMENT)).hasSize(1);
		advanceDatabaseClock(SECOND);
		Map<String, LeaseObservation> observed = observations(repository, "t1", "t2");
		assertThat(repository.takeOver("t1", "b", observed.get("t1"), MOMENT)).isTrue();
		assertThat(repository.takeOverAll("b", Map.of("t2", observed.get("t2")), MOMENT)).hasSize(1);
		assertThat(repository.reacquire("c1", "b", repository.find("c1").orElseThrow().term(), MOMENT)).isTrue();
		assertThat(repository.reacquireAll("b", terms(repository, "c2"), MOMENT)).hasSize(1);
		advanceDatabaseClock(SECOND);
		List<String> acquired = List.of("t1", "t2", "c1", "c2");
		long session = repository.find("t1").orElseThrow().holderVersion();
		assertThat(session).isNotNegative();
		for (String election : acquired) {
			LeaseState lease = repository.find(election).orElseThrow();
			assertThat(List.of(lease.leaderId(), lease.holderVersion(), lease.expired())).as(election)
				.containsExactly("b", session, false);
		}
		assertThat(repository.heartbeat("b", "b-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
		assertThat(acquired)
			.allSatisfy((election) -> assertThat(repository.find(election).orElseThrow().holderVersion())
				.isEqualTo(session + 1));

		assertThat(repository.handOverAll("b", terms(repository, "c2"), "a", LEASE)).singleElement()
			.satisfies((handed) -> assertThat(handed.holderVersion()).isEqualTo(-1));
		repository.removeCandidacies("b", "b-1");
		assertThat(repository.create("c3", "b", LEASE)).isTrue();
		assertThat(repository.find("c3").orElseThrow().holderVersion()).as("after the instance left").isEqualTo(-1);
	}

	/**
	 * After the database clock stepped back, a refresh keeps the session live for a lease
	 * from the database's time, not from when it was refreshed before the step: it runs
	 * out a lease after its last refresh, and then, not before, another instance may take
	 * the node id over.
	 */
	@Test
	void sessionRefreshedAfterTheDatabaseClockSteppedBackRunsOutALeaseAfterTheRefresh() {
		LeaseRepository repository = repository();
		Duration session = LEASE;
		assertThat(repository.heartbeat("a", "a-1", session, -1)).isEqualTo(Candidacy.CREATED);
		advanceDatabaseClock(Duration.ofSeconds(-60));
		assertThat(repository.heartbeat("a", "a-1", session, -1)).isEqualTo(Candidacy.HELD);
		// Acquired after the step, for a moment: only the session keeps the lease.
		assertThat(repository.create("e", "a", MOMENT)).isTrue();
		LeaseState refreshed = repository.find("e").orElseThrow();
		assertThat(refreshed.expired()).isFalse();
		assertThat(refreshed.renewedAt()).as("the session's last refresh").isBeforeOrEqualTo(refreshed.databaseTime());
		assertThat(Duration.between(refreshed.databaseTime(), refreshed.expiresAt())).as("session left")
			.isLessThanOrEqualTo(session);
		assertThat(repository.heartbeat("a", "a-2", session, watched(repository, "a")))
			.as("another instance while the session is live")
			.isEqualTo(Candidacy.IN_USE);
		advanceDatabaseClock(session.minus(SECOND));
		assertThat(repository.find("e").orElseThrow().expired()).isFalse();
		assertThat(repository.heartbeat("a", "a-2", session, watched(repository, "a"))).isEqualTo(Candidacy.IN_USE);
		advanceDatabaseClock(SECOND);
		assertThat(repository.find("e").orElseThrow().expired()).isTrue();
		assertThat(repository.heartbeat("a", "a-2", session, watched(repository, "a"))).isEqualTo(Candidacy.INHERITED);
	}

	@Test
	void leaseWhoseSessionEndedIsTakenOnlyAtTheVersionItEndedAt() {
		LeaseRepository repository = repository();
		Duration session = LEASE;
		repository.heartbeat("a", "a-1", session, -1);
		assertThat(repository.create("e", "a", MOMENT)).isTrue();
		LeaseObservation watched = LeaseObservation.of(repository.find("e").orElseThrow());
		advanceDatabaseClock(session);
		assertThat(repository.heartbeat("a", "a-2", session, watched(repository, "a"))).as("the node id gone stale")
			.isEqualTo(Candidacy.INHERITED);
		LeaseObservation ended = LeaseObservation.of(repository.find("e").orElseThrow());
		assertThat(ended.sessionEnded()).isTrue();
		assertThat(ended.unchangedSince(watched)).isTrue();

		assertThat(repository.takeOver("e", "b", watched, LEASE)).as("as if the session still ran").isFalse();
		assertThat(repository.takeOverAll("b",
				Map.of("e", new LeaseObservation(ended.version(), "a", ended.holderVersion() - 1, true)), LEASE))
			.as("at another version than the one it ended at")
			.isEmpty();
		assertThat(repository.takeOverAll("b", Map.of("e", ended), LEASE)).singleElement()
			.satisfies((taken) -> assertThat(taken.leaderId()).isEqualTo("b"));
	}

	@Test
	void leaseIsTakenFromItsSessionOnlyOnceTheSessionRanOutAtTheVersionWatched() {
		LeaseRepository repository = repository();
		Duration session = LEASE;
		repository.heartbeat("a", "a-1", session, -1);
		assertThat(repository.create("e", "a", MOMENT)).isTrue();
		advanceDatabaseClock(SECOND);
		LeaseObservation watched = LeaseObservation.of(repository.find("e").orElseThrow());
		assertThat(repository.takeOver("e", "b", watched, LEASE)).as("while the session lives").isFalse();
		// The holder refreshes once more, then stops: the follower's watch must start
		// again.
		assertThat(repository.heartbeat("a", "a-1", session, -1)).isEqualTo(Candidacy.HELD);
		advanceDatabaseClock(session);
		assertThat(repository.find("e").orElseThrow().expired()).as("the session ran out").isTrue();
		LeaseObservation now = LeaseObservation.of(repository.find("e").orElseThrow());
		assertThat(now.holderVersion()).isEqualTo(watched.holderVersion() + 1);
		assertThat(repository.takeOver("e", "b", watched, LEASE)).as("at a session version since moved on").isFalse();
		assertThat(repository.takeOverAll("b", Map.of("e", watched), LEASE)).isEmpty();
		assertThat(repository.takeOver("e", "b", new LeaseObservation(now.version(), now.holder(), -1, false), LEASE))
			.as("as if it had no session")
			.isFalse();

		assertThat(repository.takeOverAll("b", Map.of("e", now), LEASE)).singleElement().satisfies((taken) -> {
			assertThat(taken.leaderId()).isEqualTo("b");
			assertThat(taken.version()).isGreaterThan(now.version());
		});
		// The old holder's refresh works again, but the lease is no longer its own.
		assertThat(repository.heartbeat("a", "a-1", session, -1)).isEqualTo(Candidacy.HELD);
		assertThat(repository.find("e").orElseThrow().leaderId()).isEqualTo("b");
	}

	@Test
	void aNodesElectionsAreJoinedReadAndLeftAtOnce() {
		LeaseRepository repository = repository();
		joinAs(repository, "a", "e1", "e2");
		joinAs(repository, "a", "e2", "e3");
		joinAs(repository, "b", "e1");
		assertThat(repository.create("e1", "b", LEASE)).isTrue();
		assertThat(repository.create("e2", "a", LEASE)).isTrue();
		assertThat(repository.create("e9", "a", LEASE)).isTrue();
		// The leases of a's elections that exist; not e9, where a is no candidate.
		assertThat(repository.findAll("a", "a-1")).extracting(LeaseState::election)
			.containsExactlyInAnyOrder("e1", "e2");
		assertThat(repository.findAll("a", "a-1")).filteredOn((state) -> state.election().equals("e1"))
			.singleElement()
			.satisfies((state) -> assertThat(state.leaderId()).isEqualTo("b"));
		LeaseReads reads = repository.readAll("a", "a-1");
		assertThat(reads.lease("e1")).satisfies((state) -> assertThat(state.leaderId()).isEqualTo("b"));
		assertThat(reads.lease("e2")).satisfies((state) -> assertThat(state.leaderId()).isEqualTo("a"));
		assertThat(reads.lease("e3")).as("no lease yet").isNull();
		assertThat(reads.lease("e9")).as("not a candidate").isNull();
		assertThat(repository.findAll("a", "another-instance")).isEmpty();
		assertThat(repository.liveCandidates("e1", LEASE)).extracting(Candidate::nodeId).containsExactly("a", "b");
		assertThat(repository.liveCandidates("e3", LEASE)).extracting(Candidate::nodeId).containsExactly("a");
		repository.removeCandidacies("a", "a-1");
		assertThat(repository.findAll("a", "a-1")).isEmpty();
		assertThat(repository.readAll("a", "a-1").lease("e1")).isNull();
		assertThat(repository.liveCandidates("e1", LEASE)).extracting(Candidate::nodeId).containsExactly("b");
		assertThat(repository.liveCandidates("e3", LEASE)).isEmpty();
	}

	@Test
	void candidates() {
		LeaseRepository repository = repository();
		joinAs(repository, "b", "e");
		joinAs(repository, "a", "e");
		joinAs(repository, "a", "e");
		joinAs(repository, "c", "other");
		List<Candidate> candidates = repository.liveCandidates("e", LEASE);
		assertThat(candidates).extracting(Candidate::nodeId).containsExactly("a", "b");
		assertThat(candidates.get(0).lastSeen()).isAfterOrEqualTo(candidates.get(0).firstSeen());
		repository.removeCandidate("e", "b", "another-instance");
		repository.removeCandidate("e", "a", "a-1");
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("b");
	}

	/**
	 * A candidate is live while its node's last heartbeat is within the age asked for.
	 */
	@Test
	void liveCandidatesAreThoseWhoseNodeWasSeenWithinTheAgeAskedFor() {
		LeaseRepository repository = repository();
		joinAs(repository, "a", "e");
		joinAs(repository, "b", "e");
		advanceDatabaseClock(SECOND.multipliedBy(2));
		assertThat(repository.heartbeat("b", "b-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
		assertThat(repository.liveCandidates("e", SECOND)).extracting(Candidate::nodeId).containsExactly("b");
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("a", "b");
		// A candidacy of another instance than the one whose heartbeat holds the node's
		// row.
		repository.join("a", "another-instance", List.of("f"));
		assertThat(repository.liveCandidates("f", LEASE)).isEmpty();
	}

	@Test
	void instanceLeavesOnlyItsOwnCandidaciesInTheElectionsItDoesNotList() {
		LeaseRepository repository = repository();
		repository.heartbeat("a", "first", LEASE, -1);
		repository.join("a", "first", List.of("kept", "left", "also-left"));
		repository.heartbeat("b", "b-1", LEASE, -1);
		repository.join("b", "b-1", List.of("kept", "left"));
		repository.heartbeat("c", "c-1", LEASE, -1);
		repository.join("c", "c-1", List.of("left"));

		repository.leaveOtherElections("a", "first", List.of("kept", "not-joined"));
		repository.leaveOtherElections("b", "another-instance", List.of());

		assertThat(repository.liveCandidates("kept", LEASE)).extracting(Candidate::nodeId).containsExactly("a", "b");
		assertThat(repository.liveCandidates("left", LEASE)).extracting(Candidate::nodeId).containsExactly("b", "c");
		assertThat(repository.liveCandidates("also-left", LEASE)).isEmpty();
		assertThat(repository.liveCandidates("not-joined", LEASE)).isEmpty();
	}

	/**
	 * Another instance gets the node id only once the row of the one that holds it is
	 * {@code staleAfter} old, not before, and with it that one's candidacies, which count
	 * from then on: a restarted process is a new member.
	 */
	@Test
	void nodeIdOfALiveInstanceIsNotTakenByAnother() {
		LeaseRepository repository = repository();
		Duration staleAfter = LEASE;
		assertThat(repository.heartbeat("a", "first", staleAfter, -1)).isEqualTo(Candidacy.CREATED);
		repository.join("a", "first", List.of("e"));
		assertThat(repository.heartbeat("a", "first", staleAfter, -1)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("a", "second", staleAfter, -1)).isEqualTo(Candidacy.IN_USE);
		// The second instance stopping leaves the first one's rows alone.
		repository.removeCandidacies("a", "second");
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("a");
		// Once the first instance's heartbeats have stopped for that long, the second
		// takes the id over, and with it the first one's candidacies.
		advanceDatabaseClock(staleAfter.minus(SECOND));
		assertThat(repository.nodeRow("a", staleAfter)).extracting(NodeRowSighting::stale).isEqualTo(false);
		assertThat(repository.heartbeat("a", "second", staleAfter, watched(repository, "a")))
			.isEqualTo(Candidacy.IN_USE);
		advanceDatabaseClock(SECOND);
		assertThat(repository.nodeRow("a", staleAfter)).extracting(NodeRowSighting::stale).isEqualTo(true);
		assertThat(repository.heartbeat("a", "second", staleAfter, -1)).as("without a watched version")
			.isEqualTo(Candidacy.IN_USE);
		assertThat(repository.heartbeat("a", "second", staleAfter, watched(repository, "a") - 1))
			.as("at a version the row has moved on from")
			.isEqualTo(Candidacy.IN_USE);
		assertThat(repository.heartbeat("a", "second", staleAfter, watched(repository, "a")))
			.isEqualTo(Candidacy.INHERITED);
		assertThat(repository.liveCandidates("e", LEASE)).singleElement().satisfies((candidate) -> {
			assertThat(candidate.nodeId()).isEqualTo("a");
			assertThat(candidate.firstSeen()).as("a new member since the take-over")
				.isAfterOrEqualTo(candidate.lastSeen());
		});
		assertThat(repository.heartbeat("a", "second", staleAfter, -1)).isEqualTo(Candidacy.HELD);
		assertThat(repository.heartbeat("a", "first", staleAfter, -1)).isEqualTo(Candidacy.IN_USE);
		repository.removeCandidacies("a", "second");
		assertThat(repository.liveCandidates("e", LEASE)).isEmpty();
		assertThat(repository.heartbeat("a", "first", staleAfter, -1)).isEqualTo(Candidacy.CREATED);
	}

	/**
	 * A join that reaches the database after another instance took the node id over (the
	 * earlier instance sent it just before, and its answer came late) inserts nothing:
	 * its row would name the earlier instance, which no longer counts as live, and the
	 * current instance's joins leave existing rows as they are, so the node would never
	 * again be a candidate there while the current instance runs (simulator seed 6158094:
	 * a partition handed over to such a node stayed without an owner).
	 */
	@Test
	void joinOfAnInstanceWhoseNodeIdAnotherTookOverInsertsNothing() {
		LeaseRepository repository = repository();
		assertThat(repository.heartbeat("a", "first", LEASE, -1)).isEqualTo(Candidacy.CREATED);
		advanceDatabaseClock(LEASE.plus(SECOND));
		assertThat(repository.heartbeat("a", "second", LEASE, watched(repository, "a"))).isEqualTo(Candidacy.INHERITED);
		repository.join("a", "first", List.of("e", "f"));
		repository.join("a", "first", List.of("g"));
		repository.join("a", "second", List.of("e", "f", "g"));
		for (String election : List.of("e", "f", "g")) {
			assertThat(repository.liveCandidates(election, LEASE)).as(election)
				.extracting(Candidate::nodeId)
				.containsExactly("a");
		}
		// A node id that no instance holds yet is joined as before; its row comes with
		// it.
		repository.join("b", "b-1", List.of("e"));
		assertThat(repository.heartbeat("b", "b-1", LEASE, -1)).isEqualTo(Candidacy.CREATED);
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("a", "b");
	}

	@Test
	void purgeDeletesCrashedNodesAndTheLeasesNobodyRunsAnyMore() {
		LeaseRepository repository = repository();
		Duration maxAge = SECOND;
		// "crashed" joined "orphan" and "shared" and stopped sending heartbeats; "live"
		// goes on.
		joinAs(repository, "crashed", "orphan", "shared");
		assertThat(repository.create("orphan", "crashed", MOMENT)).isTrue();
		assertThat(repository.create("shared", "crashed", MOMENT)).isTrue();
		long orphanTerm = repository.find("orphan").orElseThrow().term();
		joinAs(repository, "live", "shared");
		advanceDatabaseClock(maxAge.multipliedBy(2));
		// The first purge that finds the crashed node's row stale remembers it, the
		// second deletes it.
		for (int purge = 1; purge <= 2; purge++) {
			assertThat(repository.heartbeat("live", "live-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
			assertThat(repository.find("orphan")).as("before purge %d", purge).isPresent();
			repository.purge(maxAge);
		}
		assertThat(repository.find("orphan")).isEmpty();
		assertThat(repository.liveCandidates("orphan", Duration.ofHours(1))).isEmpty();
		assertThat(repository.liveCandidates("shared", Duration.ofHours(1))).extracting(Candidate::nodeId)
			.containsExactly("live");
		// A lease that a live node still runs stays, expired or not.
		assertThat(repository.find("shared")).isPresent();
		// Created again later, a purged election's term is still greater than any before.
		assertThat(repository.create("orphan", "live", LEASE)).isTrue();
		assertThat(repository.find("orphan").orElseThrow().term()).isGreaterThan(orphanTerm);
		// The crashed node, back, creates its row again and joins afresh: its candidacies
		// went.
		assertThat(repository.heartbeat("crashed", "c-2", LEASE, -1)).isEqualTo(Candidacy.CREATED);
		assertThat(repository.findAll("crashed", "c-2")).isEmpty();
		assertThat(repository.liveCandidates("shared", LEASE)).extracting(Candidate::nodeId).containsExactly("live");
	}

	@Test
	void purgeKeepsALiveNodeWhoseRowLooksStaleByTheDatabaseClock() {
		LeaseRepository repository = repository();
		joinAs(repository, "live", "kept");
		assertThat(repository.create("kept", "live", LEASE)).isTrue();
		// A purge age shorter than the time between two refreshes, as after a forward
		// step of the database clock longer than the purge age: every row looks stale.
		Duration maxAge = MOMENT;
		Duration step = Duration.ofMillis(20);
		advanceDatabaseClock(step);
		repository.purge(maxAge);
		// The live node refreshes its row between two purges, as it does every renew
		// interval.
		assertThat(repository.heartbeat("live", "live-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
		advanceDatabaseClock(step);
		repository.purge(maxAge);
		assertThat(repository.heartbeat("live", "live-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
		assertThat(repository.liveCandidates("kept", Duration.ofHours(1))).extracting(Candidate::nodeId)
			.containsExactly("live");
		assertThat(repository.find("kept"))
			.hasValueSatisfying((lease) -> assertThat(lease.leaderId()).isEqualTo("live"));
		// A node that stopped refreshing goes at the second purge that finds its row
		// unchanged.
		advanceDatabaseClock(step);
		repository.purge(maxAge);
		assertThat(repository.liveCandidates("kept", Duration.ofHours(1))).hasSize(1);
		repository.purge(maxAge);
		assertThat(repository.liveCandidates("kept", Duration.ofHours(1))).isEmpty();
	}

	/**
	 * The purge deletes the candidacies of the node rows it deletes, and no others: a
	 * candidacy whose node has no row yet (it joined before its first heartbeat) stays,
	 * and so does the lease of its election, which has a candidate.
	 */
	@Test
	void purgeDeletesOnlyTheCandidaciesOfTheNodeRowsItDeletes() {
		LeaseRepository repository = repository();
		repository.join("x", "x-1", List.of("e"));
		assertThat(repository.create("e", "x", MOMENT)).isTrue();
		advanceDatabaseClock(SECOND.multipliedBy(2));
		repository.purge(SECOND);
		repository.purge(SECOND);
		assertThat(repository.find("e")).isPresent();
		assertThat(repository.heartbeat("x", "x-1", LEASE, -1)).isEqualTo(Candidacy.CREATED);
		assertThat(repository.liveCandidates("e", LEASE)).extracting(Candidate::nodeId).containsExactly("x");
	}

	/**
	 * A lease that no candidate runs goes once its own expiry is older than the purge
	 * age, even while its holder's session goes on: the holder left the election (its
	 * release failed) and reads the lease no more.
	 */
	@Test
	void purgeDeletesALeaseNobodyRunsByItsOwnExpiryWhateverItsHoldersSession() {
		LeaseRepository repository = repository();
		joinAs(repository, "a", "e");
		assertThat(repository.create("e", "a", MOMENT)).isTrue();
		repository.removeCandidate("e", "a", "a-1");
		advanceDatabaseClock(SECOND.multipliedBy(2));
		assertThat(repository.heartbeat("a", "a-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
		assertThat(repository.find("e").orElseThrow().expired()).as("kept by the session").isFalse();
		repository.purge(SECOND);
		assertThat(repository.find("e")).isEmpty();
	}

	/**
	 * The fence lets the work run only for the holder of the term, while the lease lives
	 * (its own expiry or its session's), and otherwise runs none of it.
	 */
	@Test
	void fenceRunsTheWorkOnlyForTheHolderOfTheTermWhileTheLeaseLives() {
		LeaseRepository repository = repository();
		repository.create("e", "a", LEASE);
		long term = repository.find("e").orElseThrow().term();
		assertThat(repository.<Long>runFenced("e", "a", term, LEASE, (t) -> t)).isEqualTo(term);
		AtomicBoolean ran = new AtomicBoolean();
		FencedCallback<Long> work = (t) -> {
			ran.set(true);
			return t;
		};
		assertThatExceptionOfType(NotLeaderException.class)
			.isThrownBy(() -> repository.runFenced("e", "a", term - 1, LEASE, work));
		assertThatExceptionOfType(NotLeaderException.class)
			.isThrownBy(() -> repository.runFenced("e", "b", term, LEASE, work));
		assertThatExceptionOfType(NotLeaderException.class)
			.isThrownBy(() -> repository.runFenced("missing", "a", term, LEASE, work));
		// Work that fails fails the run with its exception, and leaves the fence free.
		assertThatIllegalStateException().isThrownBy(() -> repository.runFenced("e", "a", term, LEASE, (t) -> {
			throw new IllegalStateException("the work failed");
		})).withMessage("the work failed");
		assertThat(repository.reacquire("e", "a", term, LEASE)).isTrue();
		long reacquired = repository.find("e").orElseThrow().term();
		assertThatExceptionOfType(NotLeaderException.class).as("the term before")
			.isThrownBy(() -> repository.runFenced("e", "a", term, LEASE, work));

		// Kept by its holder's session, then run out.
		assertThat(repository.heartbeat("a", "a-1", LEASE, -1)).isEqualTo(Candidacy.CREATED);
		assertThat(repository.create("s", "a", MOMENT)).isTrue();
		long sessionTerm = repository.find("s").orElseThrow().term();
		advanceDatabaseClock(SECOND);
		assertThat(repository.<Long>runFenced("s", "a", sessionTerm, LEASE, (t) -> t)).isEqualTo(sessionTerm);
		advanceDatabaseClock(LEASE);
		assertThatExceptionOfType(NotLeaderException.class)
			.isThrownBy(() -> repository.runFenced("e", "a", reacquired, LEASE, work));
		assertThatExceptionOfType(NotLeaderException.class)
			.isThrownBy(() -> repository.runFenced("s", "a", sessionTerm, LEASE, work));
		assertThat(ran).isFalse();
	}

	/**
	 * While fenced work runs, a batched change of holder leaves its lease alone, and a
	 * single-row one waits for the work and fails; once the work is over, the lease
	 * changes holder. The holder's refresh does not wait (I5, I9).
	 */
	@Test
	void insideFencedWorkABatchLeavesTheLeaseAloneAndAChangeOfHolderWaitsAndFails() {
		insideFencedWorkOfTheLease((repository, term, expired) -> {
			Map<String, Long> held = Map.of("e", term);
			assertThat(repository.heartbeat("a", "a-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
			assertThat(repository.handOverAll("a", held, "b", LEASE)).isEmpty();
			timesOut(() -> repository.handOver("e", "a", term, "b", LEASE));
			assertThat(repository.yieldAll("a", held)).isEmpty();
			assertThat(repository.reacquireAll("a", held, LEASE)).isEmpty();
			// The lease runs out while the work goes on.
			advanceDatabaseClock(LEASE);
			expired.putAll(observations(repository, "e"));
			assertThat(repository.find("e").orElseThrow().expired()).isTrue();
			timesOut(() -> repository.takeOver("e", "b", expired.get("e"), LEASE));
			assertThat(repository.takeOverAll("b", expired, LEASE)).isEmpty();
		});
	}

	/**
	 * A single-row change of holder that waited for fenced work and failed leaves no lock
	 * behind: the batched changes after it, still inside the work, leave the lease alone
	 * at once rather than wait for the failed change, and the holder's refresh does not
	 * wait either (I5, I9). On a database whose server went on with the failed change
	 * until the fence was free, it kept the lease row locked and the batches timed out.
	 */
	@Test
	void insideFencedWorkAFailedChangeOfHolderLeavesTheBatchesAfterItFree() {
		insideFencedWorkOfTheLease((repository, term, expired) -> {
			Map<String, Long> held = Map.of("e", term);
			timesOut(() -> repository.handOver("e", "a", term, "b", LEASE));
			assertThat(repository.handOverAll("a", held, "b", LEASE)).isEmpty();
			assertThat(repository.yieldAll("a", held)).isEmpty();
			assertThat(repository.reacquireAll("a", held, LEASE)).isEmpty();
			assertThat(repository.heartbeat("a", "a-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
			timesOut(() -> repository.yield("e", "a", term));
			assertThat(repository.yieldAll("a", held)).isEmpty();
			advanceDatabaseClock(LEASE);
			expired.putAll(observations(repository, "e"));
			timesOut(() -> repository.takeOver("e", "b", expired.get("e"), LEASE));
			assertThat(repository.takeOverAll("b", expired, LEASE)).isEmpty();
			assertThat(repository.heartbeat("a", "a-1", LEASE, -1)).isEqualTo(Candidacy.HELD);
		});
	}

	/**
	 * Run checks inside fenced work on lease {@code e} of node {@code a}, whose session
	 * is live; then the lease is as it was, and {@code b} takes it over at the version
	 * that the checks observed it expired at.
	 */
	private void insideFencedWorkOfTheLease(FencedChecks checks) {
		LeaseRepository repository = repository();
		repository.create("e", "a", LEASE);
		long term = repository.find("e").orElseThrow().term();
		Map<String, LeaseObservation> expired = new HashMap<>();
		assertThat(repository.heartbeat("a", "a-1", LEASE, -1)).isEqualTo(Candidacy.CREATED);
		// Held for longer than the waits of the changes of holder inside take on a
		// database.
		Long result = repository.runFenced("e", "a", term, LEASE.multipliedBy(4), (t) -> {
			checks.run(repository, term, expired);
			return t;
		});
		assertThat(result).isEqualTo(term);
		LeaseState after = repository.find("e").orElseThrow();
		assertThat(List.of(after.leaderId(), after.term())).containsExactly("a", term);
		assertThat(repository.takeOverAll("b", expired, LEASE)).singleElement()
			.satisfies((taken) -> assertThat(taken.leaderId()).isEqualTo("b"));
	}

	/** Checks inside fenced work. */
	@FunctionalInterface
	private interface FencedChecks {

		/**
		 * Run the checks.
		 * @param repository the repository
		 * @param term the term the work runs under
		 * @param expired where to put the observation of the lease expired
		 */
		void run(LeaseRepository repository, long term, Map<String, LeaseObservation> expired);

	}

	/**
	 * A change of holder fails as a statement that timed out, whoever ended its wait; or
	 * as a lock wait timeout where the database's own limit on lock waits comes first
	 * (H2).
	 */
	private static void timesOut(ThrowingCallable change) {
		assertThatException().isThrownBy(change)
			.matches((ex) -> DatabaseFailureKind.of(ex) == DatabaseFailureKind.TIMED_OUT
					|| DatabaseFailureKind.of(ex) == DatabaseFailureKind.CONFLICT, "timed out");
	}

	/**
	 * The version of a node id's row as an instance that watched it for a lease would
	 * pass to {@link LeaseRepository#heartbeat}; the watch itself is the heartbeat's
	 * (HeartbeatTests).
	 */
	private static long watched(LeaseRepository repository, String nodeId) {
		NodeRowSighting row = repository.nodeRow(nodeId, LEASE);
		assertThat(row).as("the row of node id %s", nodeId).isNotNull();
		return row.version();
	}

}
