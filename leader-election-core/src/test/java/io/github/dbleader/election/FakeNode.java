package io.github.dbleader.election;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A node of a state-machine test: a fake monotonic clock of its own, its heartbeat and
 * its elections, on a repository shared with the other nodes. No threads: {@link #tick()}
 * runs one heartbeat round, and listener callbacks run at once.
 */
final class FakeNode {

	final String id;

	final String instanceId;

	final FakeClock clock = new FakeClock();

	final RecordingListener listener = new RecordingListener();

	final Heartbeat heartbeat;

	/**
	 * The elections with an announced belief, which the watchdog checks
	 * ({@link #checkDeadlines}).
	 */
	final AnnouncedBeliefs beliefs = new AnnouncedBeliefs(this.clock.nanoTime());

	private final ListenerExecutor notifications = new ListenerExecutor(Runnable::run);

	private final LeaseRepository repository;

	private final ElectionSettings settings;

	private final Map<String, Election> elections = new LinkedHashMap<>();

	FakeNode(String id, String instanceId, LeaseRepository repository, ElectionSettings settings) {
		this.id = id;
		this.instanceId = instanceId;
		this.repository = repository;
		this.settings = settings;
		this.heartbeat = new Heartbeat(id, instanceId, repository, settings, this.clock,
				new DatabaseStatus(id, settings, this.clock), this.listener, this.notifications, new Random(1));
	}

	/**
	 * Join an election; it takes part from the next round on.
	 * @param name election name
	 * @return the election
	 */
	Election join(String name) {
		return join(name, TakeOverPolicy.ALWAYS);
	}

	/**
	 * Join an election with a take-over policy; it takes part from the next round on.
	 * @param name election name
	 * @param policy whether this node may take a free lease
	 * @return the election
	 */
	Election join(String name, TakeOverPolicy policy) {
		return this.elections.computeIfAbsent(name, (key) -> {
			ElectionLoop loop = new ElectionLoop(key, this.id, this.settings, this.clock, this.listener,
					this.notifications, this.heartbeat.database(), policy, this.beliefs);
			// As the service places them: every election but the partitions of a group.
			loop.placeByRank(!key.startsWith(ElectionService.PARTITION_NAME_PREFIX));
			return new Election(loop, this.id, this.repository, this.settings, this.heartbeat);
		});
	}

	ElectionLoop loop(String name) {
		return this.elections.get(name).loop();
	}

	boolean leads(String name) {
		return this.elections.get(name).isLeader();
	}

	/** One heartbeat round for all elections of this node. */
	void tick() {
		this.heartbeat.run(loops());
	}

	void release(String name, RevocationReason reason, boolean keepCompeting) {
		this.heartbeat.release(loop(name), reason, keepCompeting);
	}

	void leave(String name) {
		this.heartbeat.release(this.elections.remove(name).loop(), RevocationReason.LEFT, false);
	}

	/** Stop as the service does: release every lease, leave every election. */
	void stop() {
		this.heartbeat.releaseAll(loops());
	}

	/**
	 * One pass of the watchdog, as the service runs it every quarter renew interval.
	 * @return whether it looked at the beliefs
	 */
	boolean checkDeadlines() {
		return this.beliefs.check(this.clock.nanoTime());
	}

	private List<ElectionLoop> loops() {
		return this.elections.values().stream().map(Election::loop).toList();
	}

}
