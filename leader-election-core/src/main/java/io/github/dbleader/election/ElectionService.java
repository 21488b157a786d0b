package io.github.dbleader.election;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every election of this node: one scheduler thread for all heartbeats, one watchdog
 * thread, one thread for listener callbacks. Elections are created on first use with
 * {@link #election(String)}. Start with {@link #start()}; {@link #stop()} releases every
 * lease this node holds so that successors take over within a renew interval.
 */
public final class ElectionService implements AutoCloseable {

	/** Longest election name the lease table accepts. */
	public static final int MAX_ELECTION_NAME_LENGTH = 128;

	/** Longest node id the lease table accepts. */
	public static final int MAX_NODE_ID_LENGTH = 255;

	private static final Logger logger = LoggerFactory.getLogger(ElectionService.class);

	private final LeaseRepository repository;

	private final ElectionSettings settings;

	private final String nodeId;

	/** Tells this running instance apart from another one started with the same node id. */
	private final String instanceId = UUID.randomUUID().toString();

	private final LeadershipListener listener;

	private final MonotonicClock clock;

	private final Map<String, Election> elections = new ConcurrentHashMap<>();

	private final Map<String, ScheduledFuture<?>> heartbeats = new ConcurrentHashMap<>();

	private final Object lifecycleMonitor = new Object();

	private volatile boolean running;

	private @Nullable ScheduledExecutorService scheduler;

	private @Nullable ScheduledExecutorService watchdog;

	private volatile @Nullable ExecutorService notifier;

	/**
	 * Create a service. No thread starts and nothing is written until {@link #start()}.
	 * @param repository the lease statements
	 * @param settings timing
	 * @param nodeId this node's id: unique among running instances, human readable
	 * @param listener callback for leadership changes
	 * @param clock monotonic clock
	 * @throws IllegalArgumentException if the node id is blank or too long
	 */
	public ElectionService(LeaseRepository repository, ElectionSettings settings, String nodeId,
			LeadershipListener listener, MonotonicClock clock) {
		this.repository = Objects.requireNonNull(repository, "repository must not be null");
		this.settings = Objects.requireNonNull(settings, "settings must not be null");
		this.nodeId = validateId("node id", nodeId, MAX_NODE_ID_LENGTH);
		this.listener = Objects.requireNonNull(listener, "listener must not be null");
		this.clock = Objects.requireNonNull(clock, "clock must not be null");
	}

	/**
	 * Create a service on the system clock.
	 * @param repository the lease statements
	 * @param settings timing
	 * @param nodeId this node's id
	 * @param listener callback for leadership changes
	 */
	public ElectionService(LeaseRepository repository, ElectionSettings settings, String nodeId,
			LeadershipListener listener) {
		this(repository, settings, nodeId, listener, MonotonicClock.SYSTEM);
	}

	/** @return this node's id */
	public String nodeId() {
		return this.nodeId;
	}

	/** @return the timing of every election */
	public ElectionSettings settings() {
		return this.settings;
	}

	/**
	 * Return the election of that name, creating it on first use. Once the service runs, a
	 * new election starts competing at once.
	 * @param name election name: 1 to 128 characters
	 * @return the election
	 * @throws IllegalArgumentException if the name is blank or too long
	 */
	public Election election(String name) {
		Election existing = this.elections.get(name);
		if (existing != null) {
			return existing;
		}
		validateId("election name", name, MAX_ELECTION_NAME_LENGTH);
		synchronized (this.lifecycleMonitor) {
			return this.elections.computeIfAbsent(name, (key) -> {
				ElectionLoop loop = new ElectionLoop(key, this.nodeId, this.instanceId, this.repository,
						this.settings, this.clock, this.listener, this::notifyListener);
				Election created = new Election(loop, this.nodeId, this.repository, this.settings);
				if (this.running) {
					schedule(created);
				}
				return created;
			});
		}
	}

	/**
	 * Return the election of that name if it was created.
	 * @param name election name
	 * @return the election, or {@code null}
	 */
	public @Nullable Election findElection(String name) {
		return this.elections.get(name);
	}

	/** @return every election created so far */
	public Collection<Election> elections() {
		return Collections.unmodifiableCollection(this.elections.values());
	}

	/** Start competing in every election created so far and in those created later. */
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			this.scheduler = Executors.newSingleThreadScheduledExecutor(threads("leader-election-heartbeat"));
			this.watchdog = Executors.newSingleThreadScheduledExecutor(threads("leader-election-watchdog"));
			this.notifier = Executors.newSingleThreadExecutor(threads("leader-election-events"));
			long period = Math.max(1, this.settings.renewInterval().toNanos() / 4);
			this.watchdog.scheduleAtFixedRate(this::checkDeadlines, period, period, TimeUnit.NANOSECONDS);
			this.running = true;
			this.elections.values().forEach(this::schedule);
			logger.info("Leader election started for node '{}' (lease {}, renew interval {}, guard {})", this.nodeId,
					this.settings.leaseDuration(), this.settings.renewInterval(), this.settings.guard());
		}
	}

	/** @return whether the service runs */
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Stop: release every lease this node holds (I10), leave the candidates, and stop the
	 * threads. The caller's DataSource must still be open.
	 */
	public void stop() {
		stop(true);
	}

	/**
	 * Stop without releasing: leases expire on their own. Meant for tests that simulate a
	 * crash of this node.
	 */
	public void halt() {
		stop(false);
	}

	private void stop(boolean release) {
		List<Election> stopping;
		synchronized (this.lifecycleMonitor) {
			if (!this.running) {
				return;
			}
			this.running = false;
			this.heartbeats.values().forEach((future) -> future.cancel(false));
			this.heartbeats.clear();
			stopping = new ArrayList<>(this.elections.values());
		}
		for (Election election : stopping) {
			if (release) {
				election.loop().release(RevocationReason.SHUTDOWN, false);
			}
			else {
				election.loop().halt();
			}
		}
		this.scheduler.shutdownNow();
		this.watchdog.shutdownNow();
		this.notifier.shutdown();
		try {
			if (!this.notifier.awaitTermination(this.settings.renewInterval().toMillis(), TimeUnit.MILLISECONDS)) {
				this.notifier.shutdownNow();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.notifier.shutdownNow();
		}
		logger.info("Leader election stopped for node '{}'", this.nodeId);
	}

	@Override
	public void close() {
		stop();
	}

	private void schedule(Election election) {
		long period = this.settings.renewInterval().toNanos();
		ElectionLoop loop = election.loop();
		this.heartbeats.put(election.name(),
				this.scheduler.scheduleWithFixedDelay(() -> runSafely(loop), 0, period, TimeUnit.NANOSECONDS));
	}

	private static void runSafely(ElectionLoop loop) {
		try {
			loop.tick();
		}
		catch (Throwable ex) {
			// A failed tick must not cancel the schedule.
			logger.error("Election '{}': heartbeat failed unexpectedly", loop.election(), ex);
		}
	}

	private void checkDeadlines() {
		for (Election election : this.elections.values()) {
			election.loop().checkDeadline();
		}
	}

	private void notifyListener(Runnable callback) {
		ExecutorService executor = this.notifier;
		if (executor != null && !executor.isShutdown()) {
			executor.execute(callback);
		}
		else {
			callback.run();
		}
	}

	private static String validateId(String what, String value, int maxLength) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException(what + " must not be blank");
		}
		if (value.length() > maxLength) {
			throw new IllegalArgumentException(what + " '" + value + "' is " + value.length()
					+ " characters long; at most " + maxLength + " are allowed");
		}
		return value;
	}

	private static ThreadFactory threads(String name) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

}
