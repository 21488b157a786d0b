package io.github.dbleader.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Asks nodes' actuator endpoints over HTTP, again and again while a fault lasts, and
 * times each answer from the test JVM: one thread per node and path, each sending its
 * next request 100 ms after the previous answer. An answer that does not come within
 * {@link #GIVE_UP} is recorded as missing (status 0), so that a hang is measured rather
 * than waited for.
 */
final class EndpointWatch implements AutoCloseable {

	/** All elections of the node. */
	static final String LEADER = "/actuator/leader";

	/** The election whose leader runs the job. */
	static final String ELECTION = "/actuator/leader/" + FaultDatabase.ELECTION;

	/** The whole health, with the application's {@code db} indicator. */
	static final String HEALTH = "/actuator/health";

	/** How long a request may take before it counts as unanswered. */
	static final Duration GIVE_UP = Duration.ofSeconds(5);

	private static final long PAUSE_MILLIS = 100;

	private static final JsonMapper json = JsonMapper.builder().build();

	private final List<Answer> answers = Collections.synchronizedList(new ArrayList<>());

	private final List<Thread> threads = new ArrayList<>();

	private volatile boolean running = true;

	/**
	 * Start asking, once each node has answered each path once (not recorded: a first
	 * request also initializes the endpoint, which says nothing about a fault).
	 * @param nodes the nodes to ask
	 * @param paths the paths to ask each node
	 */
	EndpointWatch(List<SampleNode> nodes, List<String> paths) {
		CountDownLatch warmedUp = new CountDownLatch(nodes.size() * paths.size());
		for (SampleNode node : nodes) {
			for (String path : paths) {
				Thread thread = new Thread(() -> ask(node, path, warmedUp), "endpoint-watch-" + node.id() + path);
				thread.setDaemon(true);
				this.threads.add(thread);
			}
		}
		this.threads.forEach(Thread::start);
		try {
			warmedUp.await(GIVE_UP.toMillis() + 2000, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void ask(SampleNode node, String path, CountDownLatch warmedUp) {
		node.timedGet(path, GIVE_UP);
		warmedUp.countDown();
		while (this.running) {
			this.answers.add(node.timedGet(path, GIVE_UP));
			try {
				Thread.sleep(PAUSE_MILLIS);
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

	/**
	 * Stop asking; the requests under way are waited for.
	 * @return every answer, in order of sending
	 */
	List<Answer> stop() {
		this.running = false;
		for (Thread thread : this.threads) {
			try {
				thread.join(GIVE_UP.toMillis() + 2000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		synchronized (this.answers) {
			List<Answer> all = new ArrayList<>(this.answers);
			all.sort((first, second) -> Long.compare(first.sentAt(), second.sentAt()));
			return all;
		}
	}

	@Override
	public void close() {
		stop();
	}

	/**
	 * The answers to one path, optionally of one node.
	 * @param answers all answers
	 * @param path the path
	 * @param which which answers count
	 * @return those answers
	 */
	static List<Answer> of(List<Answer> answers, String path, Predicate<Answer> which) {
		return answers.stream().filter((answer) -> answer.path().equals(path)).filter(which).toList();
	}

	/**
	 * The longest time to answer, or to give up.
	 * @param answers some answers
	 * @return milliseconds, 0 if none
	 */
	static long slowest(List<Answer> answers) {
		return answers.stream().mapToLong(Answer::millis).max().orElse(0);
	}

	/**
	 * One request and what came back.
	 *
	 * @param nodeId the node asked
	 * @param path the path
	 * @param sentAt wall-clock time of sending, epoch milliseconds (the database's clock
	 * on this machine)
	 * @param millis how long the answer took, measured by the test
	 * @param status the HTTP status, 0 if no answer came within {@link #GIVE_UP}
	 * @param body the body, or why no answer came
	 */
	record Answer(String nodeId, String path, long sentAt, long millis, int status, String body) {

		/**
		 * Whether an answer came within a bound, with a status the path may have.
		 * @param bound the bound
		 * @return {@code true} if it did
		 */
		boolean answeredWithin(Duration bound) {
			boolean expectedStatus = path().equals(HEALTH) ? (this.status == 200 || this.status == 503)
					: this.status == 200;
			return expectedStatus && this.millis <= bound.toMillis();
		}

		/**
		 * @return the body as JSON, or a missing node if it is none
		 */
		JsonNode json() {
			try {
				return json.readTree(this.body);
			}
			catch (RuntimeException ex) {
				return json.missingNode();
			}
		}

		/**
		 * The election {@code default} as this answer shows it: the answer of the
		 * one-election path, the election's entry of the all-elections path, or the
		 * election's health.
		 * @return the election's JSON
		 */
		JsonNode election() {
			JsonNode root = json();
			return switch (this.path) {
				case LEADER -> root.path("elections").path(FaultDatabase.ELECTION);
				case HEALTH -> root.path("components").path("leader").path("components").path(FaultDatabase.ELECTION);
				default -> root;
			};
		}

		/**
		 * @return the election's {@code databaseUnreachableFor}, from the endpoint or the
		 * health details
		 */
		Optional<String> databaseUnreachableFor() {
			JsonNode election = election();
			JsonNode value = path().equals(HEALTH) ? election.path("details").path("databaseUnreachableFor")
					: election.path("databaseUnreachableFor");
			return value.isMissingNode() || value.isNull() ? Optional.empty() : Optional.of(value.asString());
		}

		@Override
		public String toString() {
			return this.nodeId + " GET " + this.path + " sent at " + this.sentAt + ": " + this.status + " after "
					+ this.millis + " ms: " + this.body.substring(0, Math.min(this.body.length(), 600));
		}

	}

}
