package io.github.dbleader.election.partition;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dbleader.election.ElectionService;
import io.github.dbleader.election.LeadershipListener;
import io.github.dbleader.election.RevocationReason;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.it.ElectionDatabase;
import io.github.dbleader.election.jdbc.JdbcLeaseRepository;
import io.github.dbleader.election.jdbc.JdbcPartitionPins;
import io.github.dbleader.election.jdbc.JdbcStore;
import io.github.dbleader.election.jdbc.LeaseTables;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestInstance.Lifecycle;
import org.junit.jupiter.api.Timeout;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Partition groups on a real database, which each subclass names: several
 * {@link ElectionService}s in one JVM, each with its own pool and node id, run one group
 * of 12 partitions. A sampler reads every node's ownership every millisecond and every
 * test asserts that no partition ever had two owners at one instant. Moves are counted
 * from the partitions each node gained.
 *
 * <p>
 * Lease 2 s, renew interval 400 ms, guard 400 ms, settle time 1 s.
 */
@TestInstance(Lifecycle.PER_CLASS)
@Timeout(120)
abstract class AbstractPartitionIntegrationTests {

	static final ElectionSettings SETTINGS = new ElectionSettings(Duration.ofSeconds(2), Duration.ofMillis(400),
			Duration.ofMillis(400), Duration.ofMillis(300));

	static final PartitionSettings PARTITIONS = new PartitionSettings(Duration.ofSeconds(1), 16);

	static final int COUNT = 12;

	/**
	 * Bound of every wait for balance: settle time and a few rounds, with room for a
	 * loaded machine.
	 */
	static final Duration BALANCED_WITHIN = Duration.ofSeconds(20);

	private final LeaseTables tables;

	private final Deque<AutoCloseable> resources = new ArrayDeque<>();

	private final List<Node> nodes = new ArrayList<>();

	private final ConcurrentLinkedQueue<String> overlaps = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean sampling = new AtomicBoolean();

	private ElectionDatabase database;

	private HikariDataSource setupPool;

	private Thread sampler;

	protected AbstractPartitionIntegrationTests(String shortName) {
		this.tables = new LeaseTables("pt_" + shortName + "_lease", "pt_" + shortName + "_cand");
	}

	protected abstract ElectionDatabase createDatabase();

	@BeforeAll
	void createTables() {
		this.database = createDatabase();
		this.setupPool = this.database.dataSource("partition-setup", 2, (config) -> {
		});
	}

	@AfterAll
	void dropTables() {
		if (this.setupPool != null) {
			this.database.dropTables(this.setupPool, this.tables.allTables().toArray(String[]::new));
			this.setupPool.close();
		}
		if (this.database != null) {
			this.database.close();
		}
	}

	@BeforeEach
	void startSampling() {
		this.database.recreateTables(this.setupPool, this.tables);
		this.sampling.set(true);
		this.sampler = new Thread(this::sample, "partition-sampler");
		this.sampler.setDaemon(true);
		this.sampler.start();
	}

	@AfterEach
	void stopEverything() throws Exception {
		this.sampling.set(false);
		this.sampler.join();
		while (!this.resources.isEmpty()) {
			this.resources.pop().close();
		}
		this.nodes.clear();
		assertThat(this.overlaps).as("partitions with two owners at one instant").isEmpty();
	}

	@Test
	void twelvePartitionsBalanceOnTwoThenThreeNodesAndOnlyTheStoppedNodesPartitionsMove() {
		Node a = start("node-a");
		await().atMost(BALANCED_WITHIN).until(() -> a.group.ownedPartitions().size() == COUNT);
		Node b = start("node-b");
		awaitBalance(Map.of(a, 6, b, 6));
		assertThat(b.gained).as("partitions gained by node-b").hasSize(6);
		assertThat(a.gainedSinceStart(COUNT)).isEmpty();
		Map<Integer, Node> twoNodes = owners();
		a.markGains();
		b.markGains();
		long joined = System.nanoTime();
		Node c = start("node-c");
		awaitBalance(Map.of(a, 4, b, 4, c, 4));
		report("4/4/4 after node-c started", joined);
		// A join moves P/(N+1) partitions, all to the new node.
		assertThat(c.gained).as("partitions gained by node-c").hasSize(4);
		assertThat(a.newGains()).isEmpty();
		assertThat(b.newGains()).isEmpty();
		Map<Integer, Node> threeNodes = owners();
		assertThat(moved(twoNodes, threeNodes)).hasSize(4);
		Set<Integer> ofC = c.group.ownedPartitions();
		a.markGains();
		b.markGains();
		long stopped = System.nanoTime();
		c.group.stop();
		c.service.stop();
		awaitBalance(Map.of(a, 6, b, 6));
		report("6/6 after node-c stopped", stopped);
		// A graceful leave moves only the leaver's partitions.
		Set<Integer> regained = new TreeSet<>(a.newGains());
		regained.addAll(b.newGains());
		assertThat(regained).isEqualTo(ofC);
		assertThat(a.newGains().size() + b.newGains().size()).isEqualTo(4);
		Map<Integer, Node> afterLeave = owners();
		assertThat(moved(threeNodes, afterLeave).keySet()).isEqualTo(ofC);
	}

	@Test
	void crashedNodesPartitionsFailOverAfterALeaseAndOnlyThey() {
		Node a = start("node-a");
		Node b = start("node-b");
		Node c = start("node-c");
		awaitBalance(Map.of(a, 4, b, 4, c, 4));
		Map<Integer, Node> threeNodes = owners();
		Set<Integer> ofC = c.group.ownedPartitions();
		a.markGains();
		b.markGains();
		long crashed = System.nanoTime();
		c.group.stop();
		c.service.halt();
		awaitBalance(Map.of(a, 6, b, 6));
		Duration failOver = Duration.ofNanos(System.nanoTime() - crashed);
		report("6/6 after node-c crashed", crashed);
		// Not before the crashed node's leases could have expired.
		assertThat(failOver).isGreaterThanOrEqualTo(SETTINGS.leaseDuration().minus(SETTINGS.guard()));
		Set<Integer> regained = new TreeSet<>(a.newGains());
		regained.addAll(b.newGains());
		assertThat(regained).isEqualTo(ofC);
		assertThat(a.newGains().size() + b.newGains().size()).isEqualTo(4);
		assertThat(moved(threeNodes, owners()).keySet()).isEqualTo(ofC);
	}

	@Test
	void nodeThatJoinsAndLeavesFasterThanTheSettleTimeMovesNothing() {
		PartitionSettings settleThreeSeconds = new PartitionSettings(Duration.ofSeconds(3), 16);
		Node a = start("node-a", settleThreeSeconds);
		Node b = start("node-b", settleThreeSeconds);
		awaitBalance(Map.of(a, 6, b, 6));
		// Later than the settle time after the first members started: a new node must
		// settle.
		await().pollDelay(settleThreeSeconds.settleTime()).atMost(Duration.ofSeconds(10)).until(() -> true);
		Map<Integer, Node> before = owners();
		a.markGains();
		b.markGains();
		for (int flap = 0; flap < 4; flap++) {
			Node flapping = start("node-flapping", settleThreeSeconds);
			await().pollDelay(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).until(() -> true);
			assertThat(flapping.group.ownedPartitions()).isEmpty();
			flapping.group.stop();
			flapping.service.stop();
			this.nodes.remove(flapping);
			assertThat(flapping.gained).isEmpty();
		}
		assertThat(a.newGains()).isEmpty();
		assertThat(b.newGains()).isEmpty();
		assertThat(owners()).isEqualTo(before);
	}

	@Test
	void aNodeHasAtMostMaxHandOversUnderWay() throws Exception {
		PartitionSettings twoAtATime = new PartitionSettings(Duration.ZERO, 2);
		Node a = start("node-a", twoAtATime);
		await().atMost(BALANCED_WITHIN).until(() -> a.group.ownedPartitions().size() == COUNT);
		JdbcTemplate observer = new JdbcTemplate(this.setupPool);
		String pending = "SELECT COUNT(*) FROM " + this.tables.leaseTable() + " WHERE handover_to IS NOT NULL";
		AtomicInteger most = new AtomicInteger();
		AtomicBoolean watching = new AtomicBoolean(true);
		Thread watcher = new Thread(() -> {
			while (watching.get()) {
				Integer count = observer.queryForObject(pending, Integer.class);
				most.accumulateAndGet((count != null) ? count : 0, Math::max);
			}
		});
		watcher.start();
		try {
			Node b = start("node-b", twoAtATime);
			awaitBalance(Map.of(a, 6, b, 6));
		}
		finally {
			watching.set(false);
			watcher.join();
		}
		// Six partitions moved from node-a, never more than two requested at once.
		assertThat(most.get()).isBetween(1, 2);
	}

	@Test
	void pinnedPartitionMovesToItsNodeAndStaysUntilUnpinned() {
		Node a = start("node-a");
		Node b = start("node-b");
		awaitBalance(Map.of(a, 6, b, 6));
		int partition = a.group.ownedPartitions().first();
		a.group.pin(partition, "node-b");
		await().atMost(BALANCED_WITHIN).until(() -> b.group.isOwner(partition) && balanced(Map.of(a, 6, b, 6)));
		Map<Integer, Node> pinned = owners();
		assertThat(pinned.get(partition)).isSameAs(b);
		assertThat(a.group.status().partitions().get(partition).pinnedTo()).isEqualTo("node-b");
		assertThat(a.group.unpin(partition)).isTrue();
		await().atMost(BALANCED_WITHIN).until(() -> a.group.status().partitions().get(partition).pinnedTo() == null);
		assertThat(owners()).isEqualTo(pinned);
	}

	private void report(String what, long sinceNanos) {
		System.out.printf("[partitions %s] %s: %d ms (renew interval %d ms, settle time %d ms)%n",
				this.tables.leaseTable(), what, Duration.ofNanos(System.nanoTime() - sinceNanos).toMillis(),
				SETTINGS.renewInterval().toMillis(), PARTITIONS.settleTime().toMillis());
	}

	private Node start(String nodeId) {
		return start(nodeId, PARTITIONS);
	}

	private Node start(String nodeId, PartitionSettings partitionSettings) {
		HikariDataSource pool = this.database.dataSource(nodeId, 4, (config) -> {
		});
		this.resources.push(pool);
		JdbcLeaseRepository repository = new JdbcLeaseRepository(pool, this.database.dialect(), this.tables,
				SETTINGS.statementTimeout());
		PartitionGroups groups = new PartitionGroups(new JdbcPartitionPins(
				new JdbcStore(pool, this.database.dialect(), this.tables, SETTINGS.statementTimeout())));
		ElectionService service = new ElectionService(repository, SETTINGS, nodeId, LeadershipListener.NONE);
		PartitionGroup group = groups.create(service, "orders", COUNT, partitionSettings);
		Node node = new Node(nodeId, service, group);
		group.addListener(node);
		this.resources.push(service::stop);
		this.resources.push(group::stop);
		service.start();
		group.start();
		this.nodes.add(node);
		return node;
	}

	private void awaitBalance(Map<Node, Integer> expected) {
		await().atMost(BALANCED_WITHIN).until(() -> balanced(expected));
	}

	private boolean balanced(Map<Node, Integer> expected) {
		int owned = 0;
		for (Map.Entry<Node, Integer> entry : expected.entrySet()) {
			int size = entry.getKey().group.ownedPartitions().size();
			if (size != entry.getValue() || !entry.getKey().eventsCaughtUp()) {
				return false;
			}
			owned += size;
		}
		return owned == COUNT && owners().size() == COUNT;
	}

	private Map<Integer, Node> owners() {
		Map<Integer, Node> owners = new TreeMap<>();
		for (Node node : this.nodes) {
			node.group.ownedPartitions().forEach((partition) -> owners.put(partition, node));
		}
		return owners;
	}

	private static Map<Integer, Node> moved(Map<Integer, Node> before, Map<Integer, Node> after) {
		Map<Integer, Node> moved = new TreeMap<>();
		after.forEach((partition, owner) -> {
			if (before.get(partition) != owner) {
				moved.put(partition, owner);
			}
		});
		return moved;
	}

	private void sample() {
		while (this.sampling.get()) {
			for (int partition = 0; partition < COUNT; partition++) {
				List<String> owners = new ArrayList<>();
				for (Node node : List.copyOf(this.nodes)) {
					if (node.group.isOwner(partition)) {
						owners.add(node.id);
					}
				}
				if (owners.size() > 1) {
					this.overlaps.add("partition " + partition + ": " + owners);
				}
			}
			try {
				Thread.sleep(1);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/** One node: its service and group, and the partitions it gained, in order. */
	private static final class Node implements PartitionListener {

		private final String id;

		private final ElectionService service;

		private final PartitionGroup group;

		private final List<Integer> gained = new java.util.concurrent.CopyOnWriteArrayList<>();

		private volatile int mark;

		Node(String id, ElectionService service, PartitionGroup group) {
			this.id = id;
			this.service = service;
			this.group = group;
		}

		/**
		 * What the events say this node owns: they reach the listener after the belief
		 * changed.
		 */
		private final Set<Integer> owned = java.util.concurrent.ConcurrentHashMap.newKeySet();

		@Override
		public void partitionGained(String group, int partition, long term) {
			this.gained.add(partition);
			this.owned.add(partition);
		}

		@Override
		public void partitionLost(String group, int partition, long term, RevocationReason reason) {
			this.owned.remove(partition);
		}

		/**
		 * @return whether every change of ownership has reached the listener
		 */
		boolean eventsCaughtUp() {
			return this.owned.equals(this.group.ownedPartitions());
		}

		void markGains() {
			this.mark = this.gained.size();
		}

		List<Integer> newGains() {
			return this.gained.subList(this.mark, this.gained.size());
		}

		List<Integer> gainedSinceStart(int first) {
			return this.gained.subList(Math.min(first, this.gained.size()), this.gained.size());
		}

		@Override
		public String toString() {
			return this.id;
		}

	}

}
