package io.github.dbleader.election.lock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.github.dbleader.election.FencedCallback;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What every {@link LockRepository} does that cluster locks rest on, written against the
 * interface alone and derived from {@code JdbcLockRepository}: taking a free, an expired
 * or a new lock, and refusing a held one; terms strictly increasing; extensions, one or a
 * batch, and releases only by the acquisition that holds the lock, with the
 * {@code atLeastFor} of the acquisition and of the last extension; the fence, which a
 * change of holder waits for while the holder's own statements do not; the operator's
 * release; the read of every lock; names compared exactly; expiry by the database clock
 * alone, stepped forward or back. Subclasses run it on {@code JdbcLockRepository} on each
 * database ({@link JdbcLockRepositoryContract}: MySQL and MariaDB Connector/J on the
 * MySQL-protocol server, PostgreSQL, H2) and on the test double
 * {@link InMemoryLockRepository} that the lock tests run on
 * ({@link InMemoryLockRepositoryContractTests}): the double passes what every database
 * passes.
 *
 * <p>
 * The database clock moves only as a test moves it ({@link #advanceDatabaseClock}); on a
 * real database a little real time passes between statements as well, so every bound
 * leaves a margin of a second and no test needs the clock to stand still. No lock is
 * taken for less than a second: {@code JdbcLockRepository} reads the term of a take back,
 * and answers none if the lock has expired by then.
 */
abstract class LockRepositoryContract {

	static final Duration LOCK = Duration.ofSeconds(5);

	/** A step of the database clock far longer than what the statements between take. */
	static final Duration SECOND = Duration.ofSeconds(1);

	static final String JOB = ClusterLocks.KEY_PREFIX + "job";

	private LockRepository repository;

	/**
	 * A repository on empty tables.
	 * @return the repository
	 */
	protected abstract LockRepository createRepository();

	/**
	 * Move the database clock that every statement of the repository sees from now on.
	 * @param by how far, forward if positive
	 */
	protected abstract void advanceDatabaseClock(Duration by);

	@BeforeEach
	void createTheRepository() {
		this.repository = createRepository();
	}

	LockRepository repository() {
		return this.repository;
	}

	/** The row of a lock as {@link LockRepository#findLocks} reads it. */
	private LockState lock(String key) {
		String name = key.substring(ClusterLocks.KEY_PREFIX.length());
		return this.repository.findLocks()
			.stream()
			.filter((lock) -> lock.name().equals(name))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no lock " + name));
	}

	/** How long the lock is still taken, by the database clock of the read. */
	private Duration remaining(String key) {
		LockState lock = lock(key);
		return Duration.between(lock.databaseTime(), lock.expiresAt());
	}

	/**
	 * Run a statement on another thread, as the keep-alive or another run would, and wait
	 * for it.
	 */
	private static <T> T onAnotherThread(Supplier<T> statement) {
		try {
			return CompletableFuture.supplyAsync(statement).get(10, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException failure) {
				throw failure;
			}
			throw new AssertionError(ex.getCause());
		}
		catch (InterruptedException | TimeoutException ex) {
			throw new AssertionError("the statement waited for the fenced work", ex);
		}
	}

	@Test
	void aLockIsCreatedHeldByTheNodeThatTriesItFirst() {
		LockRepository repository = repository();
		assertThat(repository.findLocks()).isEmpty();
		long term = repository.tryLock(JOB, "a", LOCK).orElseThrow();
		LockState lock = lock(JOB);
		assertThat(lock.name()).isEqualTo("job");
		assertThat(lock.holder()).isEqualTo("a");
		assertThat(lock.term()).isEqualTo(term);
		assertThat(lock.held()).isTrue();
		assertThat(lock.acquiredAt()).isBeforeOrEqualTo(lock.databaseTime());
		assertThat(lock.expiresAt()).isAfter(lock.databaseTime());
		assertThat(remaining(JOB)).isLessThanOrEqualTo(LOCK);
	}

	/** A held lock is refused to every node, its holder too, and left as it is. */
	@Test
	void aHeldLockIsRefusedToEveryNodeItsHolderToo() {
		LockRepository repository = repository();
		long term = repository.tryLock(JOB, "a", LOCK).orElseThrow();
		LockState before = lock(JOB);
		assertThat(repository.tryLock(JOB, "b", LOCK)).isEmpty();
		assertThat(repository.tryLock(JOB, "a", LOCK)).as("its holder, again").isEmpty();
		advanceDatabaseClock(LOCK.minus(SECOND));
		assertThat(repository.tryLock(JOB, "b", LOCK)).as("a second before it expires").isEmpty();
		LockState after = lock(JOB);
		assertThat(List.of(after.holder(), after.term(), after.acquiredAt(), after.expiresAt())).containsExactly("a",
				term, before.acquiredAt(), before.expiresAt());
	}

	/**
	 * A lock expires {@code atMostFor} after its acquisition by the database clock, and
	 * the first node that tries it then takes it, its last holder too, with a greater
	 * term.
	 */
	@Test
	void anExpiredLockIsTakenByTheFirstNodeThatTriesItWithAGreaterTerm() {
		LockRepository repository = repository();
		long first = repository.tryLock(JOB, "a", LOCK).orElseThrow();
		advanceDatabaseClock(LOCK);
		assertThat(lock(JOB).held()).isFalse();
		assertThat(lock(JOB).holder()).as("kept for diagnosis").isEqualTo("a");
		long second = repository.tryLock(JOB, "b", LOCK).orElseThrow();
		assertThat(second).isGreaterThan(first);
		assertThat(lock(JOB).holder()).isEqualTo("b");
		assertThat(lock(JOB).held()).isTrue();
		advanceDatabaseClock(LOCK);
		long third = repository.tryLock(JOB, "b", LOCK).orElseThrow();
		assertThat(third).as("its holder, once it expired").isGreaterThan(second);
	}

	/**
	 * The database clock alone decides: a backward step keeps a lock taken until its
	 * expiry comes on the stepped clock, and a term handed out after it is still greater
	 * than every earlier one.
	 */
	@Test
	void afterABackwardStepOfTheDatabaseClockTermsStillIncrease() {
		LockRepository repository = repository();
		long first = repository.tryLock(JOB, "a", SECOND).orElseThrow();
		advanceDatabaseClock(SECOND);
		assertThat(lock(JOB).held()).isFalse();
		advanceDatabaseClock(Duration.ofSeconds(-60));
		assertThat(lock(JOB).held()).as("its expiry lies in the stepped clock's future").isTrue();
		assertThat(repository.tryLock(JOB, "b", LOCK)).isEmpty();
		long forced = repository.forceRelease(JOB).orElseThrow();
		assertThat(forced).isGreaterThan(first);
		long second = repository.tryLock(JOB, "b", LOCK).orElseThrow();
		assertThat(second).isGreaterThan(forced);
		assertThat(remaining(JOB)).isLessThanOrEqualTo(LOCK);
	}

	/**
	 * An extension by the acquisition that holds the lock makes it expire
	 * {@code atMostFor} from now, later or earlier than before, and keeps the term; any
	 * other, or one after the lock expired (even if nobody took it), changes nothing.
	 */
	@Test
	void onlyTheHoldersAcquisitionExtendsTheLockLongerOrShorterUntilItExpires() {
		LockRepository repository = repository();
		long term = repository.tryLock(JOB, "a", LOCK).orElseThrow();
		LockState before = lock(JOB);
		assertThat(repository.extendLock(JOB, "b", term, LOCK.multipliedBy(2))).isFalse();
		assertThat(repository.extendLock(JOB, "a", term - 1, LOCK.multipliedBy(2))).isFalse();
		assertThat(repository.extendLock(JOB, "a", term + 1, LOCK.multipliedBy(2))).isFalse();
		assertThat(repository.extendLock(ClusterLocks.KEY_PREFIX + "missing", "a", term, LOCK)).isFalse();
		assertThat(lock(JOB).expiresAt()).isEqualTo(before.expiresAt());

		assertThat(repository.extendLock(JOB, "a", term, LOCK.multipliedBy(2))).isTrue();
		assertThat(remaining(JOB)).isGreaterThan(LOCK);
		advanceDatabaseClock(LOCK.plus(SECOND));
		assertThat(repository.tryLock(JOB, "b", LOCK)).as("past the acquisition's atMostFor").isEmpty();
		LockState extended = lock(JOB);
		assertThat(List.of(extended.holder(), extended.term(), extended.acquiredAt())).containsExactly("a", term,
				before.acquiredAt());

		// Shorter than what is left.
		assertThat(repository.extendLock(JOB, "a", term, SECOND)).isTrue();
		assertThat(remaining(JOB)).isLessThanOrEqualTo(SECOND);
		advanceDatabaseClock(SECOND);
		assertThat(lock(JOB).held()).isFalse();
		assertThat(repository.extendLock(JOB, "a", term, LOCK)).as("expired, not taken").isFalse();
		assertThat(lock(JOB).held()).isFalse();
		assertThat(repository.tryLock(JOB, "b", LOCK)).isPresent();
	}

	/**
	 * A batch of extensions extends each lock only under the single-row conditions, with
	 * its own term, and counts exactly those; it leaves the others, listed or not, alone.
	 */
	@Test
	void extendLocksExtendsEachLockOnlyUnderTheSingleRowConditions() {
		LockRepository repository = repository();
		String extended = ClusterLocks.KEY_PREFIX + "extended";
		String otherTerm = ClusterLocks.KEY_PREFIX + "other-term";
		String expired = ClusterLocks.KEY_PREFIX + "expired";
		String released = ClusterLocks.KEY_PREFIX + "released";
		String othersLock = ClusterLocks.KEY_PREFIX + "others";
		String unlisted = ClusterLocks.KEY_PREFIX + "unlisted";
		Map<String, Long> terms = new LinkedHashMap<>();
		for (String key : List.of(extended, otherTerm, released, unlisted)) {
			terms.put(key, repository.tryLock(key, "a", LOCK).orElseThrow());
		}
		terms.put(expired, repository.tryLock(expired, "a", SECOND).orElseThrow());
		terms.put(othersLock, repository.tryLock(othersLock, "b", LOCK).orElseThrow());
		assertThat(repository.releaseLock(released, "a", terms.get(released), LOCK, LOCK)).isTrue();
		advanceDatabaseClock(SECOND);
		Map<String, LockState> before = new LinkedHashMap<>();
		for (String key : List.of(otherTerm, expired, released, othersLock, unlisted)) {
			before.put(key, lock(key));
		}
		Map<String, Long> listed = new LinkedHashMap<>();
		listed.put(extended, terms.get(extended));
		listed.put(otherTerm, terms.get(otherTerm) - 1);
		listed.put(expired, terms.get(expired));
		listed.put(released, terms.get(released));
		listed.put(othersLock, terms.get(othersLock));
		listed.put(ClusterLocks.KEY_PREFIX + "missing", 1L);

		assertThat(repository.extendLocks("a", listed, LOCK.multipliedBy(2))).isOne();

		assertThat(remaining(extended)).isGreaterThan(LOCK);
		assertThat(lock(extended).term()).isEqualTo(terms.get(extended));
		before.forEach((key, lock) -> {
			LockState after = lock(key);
			assertThat(List.of(after.holder(), after.term(), after.expiresAt())).as(key)
				.containsExactly(lock.holder(), lock.term(), lock.expiresAt());
		});
		assertThat(repository.extendLocks("a", Map.of(), LOCK)).isZero();
	}

	/**
	 * Only the acquisition that holds the lock releases it; without {@code atLeastFor}
	 * the lock is free at once, to every node, the releaser too. A released acquisition
	 * is never extended again.
	 */
	@Test
	void onlyTheHoldersAcquisitionReleasesTheLock() {
		LockRepository repository = repository();
		long term = repository.tryLock(JOB, "a", LOCK).orElseThrow();
		assertThat(repository.releaseLock(JOB, "b", term, Duration.ZERO, Duration.ZERO)).isFalse();
		assertThat(repository.releaseLock(JOB, "a", term - 1, Duration.ZERO, Duration.ZERO)).isFalse();
		assertThat(repository.releaseLock(ClusterLocks.KEY_PREFIX + "missing", "a", term, Duration.ZERO, Duration.ZERO))
			.isFalse();
		assertThat(lock(JOB).held()).isTrue();
		assertThat(repository.releaseLock(JOB, "a", term, Duration.ZERO, Duration.ZERO)).isTrue();
		LockState released = lock(JOB);
		assertThat(released.held()).isFalse();
		assertThat(List.of(released.holder(), released.term())).as("kept for diagnosis").containsExactly("a", term);
		assertThat(repository.extendLock(JOB, "a", term, LOCK)).isFalse();
		assertThat(repository.releaseLock(JOB, "a", term, Duration.ZERO, Duration.ZERO)).as("expired").isFalse();
		long again = repository.tryLock(JOB, "a", LOCK).orElseThrow();
		assertThat(again).as("by the releaser, at once").isGreaterThan(term);
		assertThat(repository.releaseLock(JOB, "a", term, Duration.ZERO, Duration.ZERO)).as("the term before")
			.isFalse();
		assertThat(lock(JOB).held()).isTrue();
	}

	/**
	 * A released lock stays taken until {@code atLeastFor} after its acquisition, and no
	 * extension revives the released acquisition meanwhile; never later than it would
	 * have expired, and a second release does not lengthen it.
	 */
	@Test
	void aReleasedLockStaysTakenUntilAtLeastForAfterItsAcquisitionNeverLaterThanItsExpiry() {
		LockRepository repository = repository();
		long term = repository.tryLock(JOB, "a", LOCK.multipliedBy(2)).orElseThrow();
		advanceDatabaseClock(SECOND);
		assertThat(repository.releaseLock(JOB, "a", term, SECOND.multipliedBy(3), Duration.ZERO)).isTrue();
		assertThat(repository.extendLock(JOB, "a", term, LOCK)).as("released, still taken").isFalse();
		LockState released = lock(JOB);
		assertThat(released.held()).isTrue();
		assertThat(released.expiresAt()).isEqualTo(released.acquiredAt().plus(SECOND.multipliedBy(3)));
		assertThat(repository.releaseLock(JOB, "a", term, LOCK.multipliedBy(2), LOCK.multipliedBy(2)))
			.as("it still held it")
			.isTrue();
		assertThat(lock(JOB).expiresAt()).as("no later than before").isEqualTo(released.expiresAt());
		advanceDatabaseClock(SECOND);
		assertThat(repository.tryLock(JOB, "b", LOCK)).isEmpty();
		advanceDatabaseClock(SECOND);
		assertThat(repository.tryLock(JOB, "b", LOCK)).isPresent();

		// An atLeastFor longer than what is left leaves the expiry as it is.
		String shortLock = ClusterLocks.KEY_PREFIX + "short";
		long shortTerm = repository.tryLock(shortLock, "a", SECOND.multipliedBy(2)).orElseThrow();
		LockState taken = lock(shortLock);
		assertThat(repository.releaseLock(shortLock, "a", shortTerm, LOCK, LOCK)).isTrue();
		assertThat(lock(shortLock).expiresAt()).isEqualTo(taken.expiresAt());
		advanceDatabaseClock(SECOND.multipliedBy(2));
		assertThat(repository.tryLock(shortLock, "b", LOCK)).isPresent();
	}

	/**
	 * After an extension, a release keeps the lock taken until the later of the
	 * acquisition's {@code atLeastFor} after the acquisition and the extension's after
	 * the last extension, or frees it at once if both have passed.
	 */
	@Test
	void aReleaseAfterAnExtensionCountsItsAtLeastForFromTheLastExtension() {
		LockRepository repository = repository();
		long term = repository.tryLock(JOB, "a", LOCK).orElseThrow();
		advanceDatabaseClock(SECOND.multipliedBy(2));
		assertThat(repository.extendLock(JOB, "a", term, LOCK)).isTrue();
		advanceDatabaseClock(SECOND);
		// From the acquisition that has passed; from the extension a second is left.
		assertThat(repository.releaseLock(JOB, "a", term, SECOND, SECOND.multipliedBy(2))).isTrue();
		assertThat(remaining(JOB)).isLessThanOrEqualTo(SECOND);
		assertThat(repository.tryLock(JOB, "b", LOCK)).isEmpty();
		advanceDatabaseClock(SECOND);
		assertThat(repository.tryLock(JOB, "b", LOCK)).isPresent();

		String both = ClusterLocks.KEY_PREFIX + "both-passed";
		long bothTerm = repository.tryLock(both, "a", LOCK).orElseThrow();
		advanceDatabaseClock(SECOND);
		assertThat(repository.extendLock(both, "a", bothTerm, LOCK)).isTrue();
		advanceDatabaseClock(SECOND.multipliedBy(2));
		assertThat(repository.releaseLock(both, "a", bothTerm, SECOND, SECOND)).isTrue();
		assertThat(lock(both).held()).isFalse();
		assertThat(repository.tryLock(both, "b", LOCK)).isPresent();
	}

	/**
	 * After the database clock stepped back, the acquisition and the last extension lie
	 * in the clock's future: a release counts {@code atLeastFor} from now, not from them,
	 * so the lock is not kept taken for as long as the step.
	 */
	@Test
	void aReleaseAfterABackwardStepOfTheDatabaseClockCountsAtLeastForFromNow() {
		LockRepository repository = repository();
		long term = repository.tryLock(JOB, "a", Duration.ofSeconds(120)).orElseThrow();
		advanceDatabaseClock(Duration.ofSeconds(-60));
		assertThat(repository.releaseLock(JOB, "a", term, SECOND, SECOND)).isTrue();
		assertThat(remaining(JOB)).isLessThanOrEqualTo(SECOND);
		advanceDatabaseClock(SECOND);
		assertThat(repository.tryLock(JOB, "b", LOCK).orElseThrow()).isGreaterThan(term);
	}

	/**
	 * The fence runs the work only for the acquisition that holds the lock, while the
	 * lock lives by the database clock, and otherwise runs none of it.
	 */
	@Test
	void fenceRunsTheWorkOnlyForTheHoldersAcquisitionWhileTheLockLives() {
		LockRepository repository = repository();
		long term = repository.tryLock(JOB, "a", LOCK).orElseThrow();
		assertThat(repository.<Long>runLockFenced(JOB, "a", term, LOCK, (t) -> t)).isEqualTo(term);
		AtomicBoolean ran = new AtomicBoolean();
		FencedCallback<Long> work = (t) -> {
			ran.set(true);
			return t;
		};
		assertThatExceptionOfType(LockNotHeldException.class)
			.isThrownBy(() -> repository.runLockFenced(JOB, "b", term, LOCK, work));
		assertThatExceptionOfType(LockNotHeldException.class)
			.isThrownBy(() -> repository.runLockFenced(JOB, "a", term - 1, LOCK, work));
		assertThatExceptionOfType(LockNotHeldException.class)
			.isThrownBy(() -> repository.runLockFenced(ClusterLocks.KEY_PREFIX + "missing", "a", term, LOCK, work))
			.satisfies((ex) -> assertThat(List.of(ex.getLockName(), ex.getTerm()))
				.containsExactly(ClusterLocks.KEY_PREFIX + "missing", term));
		// Work that fails fails the run with its exception, and leaves the fence free.
		assertThatIllegalStateException().isThrownBy(() -> repository.runLockFenced(JOB, "a", term, LOCK, (t) -> {
			throw new IllegalStateException("the work failed");
		})).withMessage("the work failed");

		advanceDatabaseClock(LOCK);
		assertThatExceptionOfType(LockNotHeldException.class).as("expired, not taken")
			.isThrownBy(() -> repository.runLockFenced(JOB, "a", term, LOCK, work));
		long taken = repository.tryLock(JOB, "b", LOCK).orElseThrow();
		assertThatExceptionOfType(LockNotHeldException.class).as("taken by another node")
			.isThrownBy(() -> repository.runLockFenced(JOB, "a", term, LOCK, work));
		assertThat(repository.<Long>runLockFenced(JOB, "b", taken, LOCK, (t) -> t)).isEqualTo(taken);
		assertThat(repository.forceRelease(JOB)).isPresent();
		assertThatExceptionOfType(LockNotHeldException.class).as("released by an operator")
			.isThrownBy(() -> repository.runLockFenced(JOB, "b", taken, LOCK, work));
		assertThat(ran).isFalse();
	}

	/**
	 * While fenced work runs, the holder's extensions, batched or not, its release and
	 * the read of the locks do not wait for it, from another thread as the keep-alive's
	 * (I9); a change of holder, a take of the lock once it is free or an operator's
	 * release, waits for the work and fails, or (a take on PostgreSQL) skips the lock;
	 * either way the lock stays as it was until the work is over, and is then taken (I5).
	 */
	@Test
	void insideFencedWorkTheHoldersStatementsGoThroughAndAChangeOfHolderWaitsAndFails() {
		LockRepository repository = repository();
		long term = repository.tryLock(JOB, "a", LOCK).orElseThrow();
		Long result = repository.runLockFenced(JOB, "a", term, LOCK, (t) -> {
			assertThat(onAnotherThread(() -> repository.extendLock(JOB, "a", term, LOCK))).isTrue();
			assertThat(onAnotherThread(() -> repository.extendLocks("a", Map.of(JOB, term), LOCK))).isOne();
			assertThat(onAnotherThread(repository::findLocks)).singleElement()
				.satisfies((lock) -> assertThat(lock.held()).isTrue());
			assertThat(onAnotherThread(() -> repository.releaseLock(JOB, "a", term, Duration.ZERO, Duration.ZERO)))
				.isTrue();
			assertThat(onAnotherThread(() -> lock(JOB).held())).isFalse();
			// The changes of holder last: where one's socket timeout ends it before its
			// query timeout does, the server keeps its transaction, and the lock on the
			// lease row, until the fence is free.
			OptionalLong took;
			try {
				took = onAnotherThread(() -> repository.tryLock(JOB, "b", LOCK));
			}
			catch (RuntimeException ex) {
				// Waited for the fence past the statement timeout.
				took = OptionalLong.empty();
			}
			assertThat(took).as("a take while the fence is held").isEmpty();
			assertThatException().isThrownBy(() -> onAnotherThread(() -> repository.forceRelease(JOB)));
			return t;
		});
		assertThat(result).isEqualTo(term);
		LockState after = lock(JOB);
		assertThat(List.of(after.holder(), after.term(), after.held())).containsExactly("a", term, false);
		assertThat(repository.tryLock(JOB, "b", LOCK).orElseThrow()).isGreaterThan(term);
	}

	/**
	 * An operator's release gives the lock a greater term, no holder, and frees it at
	 * once, {@code atLeastFor} notwithstanding; the old acquisition can neither extend,
	 * release nor fence any more, and the next take gets a greater term still.
	 */
	@Test
	void forceReleaseFreesTheLockWithAGreaterTermAndNoHolder() {
		LockRepository repository = repository();
		assertThat(repository.forceRelease(JOB)).as("never taken").isEmpty();
		assertThat(repository.findLocks()).isEmpty();
		long term = repository.tryLock(JOB, "a", LOCK).orElseThrow();
		assertThat(repository.releaseLock(JOB, "a", term, LOCK, LOCK)).isTrue();
		long forced = repository.forceRelease(JOB).orElseThrow();
		assertThat(forced).isGreaterThan(term);
		LockState released = lock(JOB);
		assertThat(released.holder()).isNull();
		assertThat(released.term()).isEqualTo(forced);
		assertThat(released.held()).isFalse();
		assertThat(repository.extendLock(JOB, "a", term, LOCK)).isFalse();
		assertThat(repository.releaseLock(JOB, "a", term, Duration.ZERO, Duration.ZERO)).isFalse();
		assertThatExceptionOfType(LockNotHeldException.class)
			.isThrownBy(() -> repository.runLockFenced(JOB, "a", term, LOCK, (t) -> t));
		long next = repository.tryLock(JOB, "b", LOCK).orElseThrow();
		assertThat(next).isGreaterThan(forced);
		assertThat(lock(JOB).holder()).isEqualTo("b");
		assertThat(repository.forceRelease(JOB).orElseThrow()).as("again").isGreaterThan(next);
	}

	/** The read answers every lock, by name without the prefix, held or not. */
	@Test
	void findLocksReadsEveryLockByNameWithoutThePrefix() {
		LockRepository repository = repository();
		long b = repository.tryLock(ClusterLocks.KEY_PREFIX + "b", "x", LOCK).orElseThrow();
		long c = repository.tryLock(ClusterLocks.KEY_PREFIX + "c", "y", SECOND).orElseThrow();
		long a = repository.tryLock(ClusterLocks.KEY_PREFIX + "a", "x", LOCK).orElseThrow();
		advanceDatabaseClock(SECOND);
		List<LockState> locks = repository.findLocks();
		assertThat(locks).extracting(LockState::name).containsExactly("a", "b", "c");
		assertThat(locks).extracting(LockState::holder).containsExactly("x", "x", "y");
		assertThat(locks).extracting(LockState::term).containsExactly(a, b, c);
		assertThat(locks).extracting(LockState::held).containsExactly(true, true, false);
		assertThat(locks).allSatisfy((lock) -> assertThat(lock.acquiredAt()).isBefore(lock.databaseTime()));
	}

	/**
	 * Names are compared exactly, as the lease table's binary collation does: names that
	 * differ only in case are different locks.
	 */
	@Test
	void namesThatDifferOnlyInCaseAreDifferentLocks() {
		LockRepository repository = repository();
		String upper = ClusterLocks.KEY_PREFIX + "JOB";
		String mixed = ClusterLocks.KEY_PREFIX + "Job";
		long term = repository.tryLock(JOB, "a", LOCK).orElseThrow();
		long upperTerm = repository.tryLock(upper, "b", LOCK).orElseThrow();
		long mixedTerm = repository.tryLock(mixed, "c", LOCK).orElseThrow();
		assertThat(repository.findLocks()).extracting(LockState::name).containsExactlyInAnyOrder("job", "JOB", "Job");
		assertThat(repository.extendLock(upper, "a", term, LOCK)).isFalse();
		assertThat(repository.releaseLock(mixed, "a", term, Duration.ZERO, Duration.ZERO)).isFalse();
		assertThatExceptionOfType(LockNotHeldException.class)
			.isThrownBy(() -> repository.runLockFenced(upper, "a", term, LOCK, (t) -> t));
		assertThat(repository.forceRelease(upper)).isPresent();
		assertThat(lock(JOB).holder()).isEqualTo("a");
		assertThat(lock(mixed).holder()).isEqualTo("c");
		assertThat(repository.extendLock(mixed, "c", mixedTerm, LOCK)).isTrue();
		assertThat(lock(upper).term()).isGreaterThan(upperTerm);
	}

	/** A node's cluster locks on this repository, on the system's monotonic clock. */
	private ClusterLocks node(String nodeId) {
		return new ClusterLocks(this.repository, nodeId);
	}

	@Test
	void freeLocksAreTheMissingExpiredAndReleasedOnesInOneRead() {
		LockRepository repository = repository();
		String held = JOB + "::permit-2";
		String released = JOB + "::permit-3";
		String expired = JOB + "::permit-4";
		String missing = JOB + "::permit-5";
		long heldTerm = repository.tryLock(held, "a", LOCK).orElseThrow();
		long releasedTerm = repository.tryLock(released, "a", LOCK).orElseThrow();
		repository.tryLock(expired, "a", SECOND).orElseThrow();
		assertThat(repository.releaseLock(released, "a", releasedTerm, Duration.ZERO, Duration.ZERO)).isTrue();
		advanceDatabaseClock(SECOND.multipliedBy(2));
		assertThat(repository.freeLocks(List.of(missing, held, expired, released))).containsExactly(missing, expired,
				released);
		assertThat(repository.freeLocks(List.of(held))).isEmpty();
		assertThat(repository.extendLock(held, "a", heldTerm, LOCK)).isTrue();
	}

	@Test
	void atMostNHoldPermitsAtOnceAndAReleasedOrExpiredPermitIsTakenAgain() {
		List<HeldLock> held = new ArrayList<>();
		for (String node : List.of("a", "b", "c")) {
			held.add(node(node).tryPermit("job", 3, LOCK, Duration.ZERO).orElseThrow());
		}
		assertThat(held).extracting(HeldLock::name).containsExactlyInAnyOrder("job", "job::permit-2", "job::permit-3");
		assertThat(node("d").tryPermit("job", 3, LOCK, Duration.ZERO)).isEmpty();
		assertThat(repository().findLocks()).extracting(LockState::name)
			.containsExactly("job", "job::permit-2", "job::permit-3");
		assertThat(held.get(1).release()).isTrue();
		HeldLock again = node("d").tryPermit("job", 3, LOCK, Duration.ZERO).orElseThrow();
		assertThat(again.name()).isEqualTo(held.get(1).name());
		assertThat(again.term()).isGreaterThan(held.get(1).term());
		advanceDatabaseClock(LOCK.plus(SECOND));
		HeldLock afterExpiry = node("e").tryPermit("job", 3, LOCK, Duration.ZERO).orElseThrow();
		HeldLock before = (afterExpiry.name().equals(again.name())) ? again
				: held.stream().filter((lock) -> lock.name().equals(afterExpiry.name())).findFirst().orElseThrow();
		assertThat(afterExpiry.term()).isGreaterThan(before.term());
	}

	@Test
	void eachPermitHoldersFencedWorkRunsUnderItsTermAndIsRefusedOnceThePermitIsLost() {
		HeldLock a = node("a").tryPermit("job", 2, LOCK, Duration.ZERO).orElseThrow();
		HeldLock b = node("b").tryPermit("job", 2, LOCK, Duration.ZERO).orElseThrow();
		assertThat(a.<Long>runFenced((term) -> term)).isEqualTo(a.term());
		assertThat(b.<Long>runFenced((term) -> term)).isEqualTo(b.term());
		// An extension keeps one permit past the other's expiry.
		assertThat(a.extend(LOCK.multipliedBy(3))).isTrue();
		advanceDatabaseClock(LOCK.plus(SECOND));
		HeldLock c = node("c").tryPermit("job", 2, LOCK, Duration.ZERO).orElseThrow();
		assertThat(c.name()).isEqualTo(b.name());
		assertThat(node("d").tryPermit("job", 2, LOCK, Duration.ZERO)).isEmpty();
		assertThat(a.<Long>runFenced((term) -> term)).isEqualTo(a.term());
		assertThatExceptionOfType(LockNotHeldException.class).isThrownBy(() -> b.runFenced((term) -> term));
		assertThat(c.<Long>runFenced((term) -> term)).isEqualTo(c.term());
	}

	/**
	 * Nodes that run a task under three permits at once, from several threads each, as
	 * the scheduler calls a {@code @ClusterLock(permits = 3)} method: never more than
	 * three runs at once, and three do run at once.
	 */
	@Test
	void runsUnderThreePermitsFromSeveralNodesAtOnceNeverExceedThree() throws Exception {
		List<ClusterLocks> nodes = List.of(node("a"), node("b"), node("c"), node("d"), node("e"));
		AtomicInteger running = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		ExecutorService threads = Executors.newFixedThreadPool(10);
		try {
			for (int round = 0; round < 5; round++) {
				CountDownLatch three = new CountDownLatch(3);
				List<CompletableFuture<Boolean>> calls = new ArrayList<>();
				for (int call = 0; call < 10; call++) {
					ClusterLocks locks = nodes.get(call % nodes.size());
					calls.add(CompletableFuture.supplyAsync(() -> {
						try {
							return locks.runLocked("job", 3, LOCK, Duration.ZERO, true, (lock) -> {
								most.accumulateAndGet(running.incrementAndGet(), Math::max);
								three.countDown();
								// Runs overlap until three have started (or a while has
								// passed): the others find every permit held.
								three.await(2, TimeUnit.SECONDS);
								running.decrementAndGet();
							});
						}
						catch (Exception ex) {
							throw new IllegalStateException(ex);
						}
					}, threads));
				}
				for (CompletableFuture<Boolean> call : calls) {
					call.get(30, TimeUnit.SECONDS);
				}
			}
		}
		finally {
			threads.shutdownNow();
		}
		assertThat(most.get()).isEqualTo(3);
	}

}
