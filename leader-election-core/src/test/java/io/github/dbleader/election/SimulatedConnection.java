package io.github.dbleader.election;

import java.net.ConnectException;
import java.sql.SQLTimeoutException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * One node's path to the {@link SimulatedDatabase}, as its {@link LeaseRepository}: each
 * statement travels for a while (the other nodes act meanwhile), waits at the server for
 * a stall or for a fence row that fenced work holds, runs there on the database clock,
 * and its answer travels back. As a JDBC driver with a statement timeout does, it fails
 * with a timeout once the answer is later than the timeout (the statement may or may not
 * have been applied), fails at once when the node is cut off, and loses the answer when
 * the connection breaks after the statement ran. A process that paused meanwhile sees the
 * answer when it resumes; one that crashed never returns
 * ({@link Simulation.ProcessEnded}).
 */
final class SimulatedConnection implements LeaseRepository {

	private final Simulation simulation;

	private final SimulatedDatabase database;

	private final SimulatedNode node;

	private final long timeoutNanos;

	/**
	 * The instance whose heartbeat last held the node's row through this connection, as
	 * the JDBC repository of a process remembers it and writes it into the leases it
	 * acquires.
	 */
	private @Nullable String session;

	/**
	 * When this process's heartbeat got its node id (simulated time), -1 while it has
	 * not.
	 */
	private long sessionSince = -1;

	/**
	 * The node rows this node's last purge found stale, as its JDBC repository remembers
	 * them.
	 */
	private Map<String, Long> staleAtLastPurge = Map.of();

	SimulatedConnection(Simulation simulation, SimulatedDatabase database, SimulatedNode node,
			ElectionSettings settings) {
		this.simulation = simulation;
		this.database = database;
		this.node = node;
		this.timeoutNanos = settings.statementTimeout().toNanos();
	}

	/**
	 * @return the process that sends now
	 */
	int generation() {
		return this.node.generation();
	}

	/**
	 * Send one statement of the running process and wait for its answer.
	 * @param statement the statement's name, for the trace
	 * @param fenced the election whose fence row a single-row change of holder waits for,
	 * or {@code null}
	 * @param action what the statement does at the server
	 */
	private <T> T send(String statement, @Nullable String fenced, Function<InMemoryLeaseDatabase, T> action) {
		return send(statement, this.node.generation(), (fenced != null) ? (server) -> server.fenceBusy(fenced) : null,
				action);
	}

	/**
	 * Send one statement and wait for its answer.
	 * @param statement the statement's name, for the trace
	 * @param generation the process that sends it: one that ended sends nothing
	 * @param waitsWhile while what the statement waits at the server (a busy fence row),
	 * until its timeout, or {@code null}
	 * @param action what the statement does at the server
	 */
	<T> T send(String statement, int generation, @Nullable Predicate<InMemoryLeaseDatabase> waitsWhile,
			Function<InMemoryLeaseDatabase, T> action) {
		try {
			return attempt(statement, generation, waitsWhile, action);
		}
		catch (RuntimeException ex) {
			this.simulation.trace(this.node.label(), statement + " failed: " + ex.getMessage());
			throw ex;
		}
	}

	private <T> T attempt(String statement, int generation, @Nullable Predicate<InMemoryLeaseDatabase> waitsWhile,
			Function<InMemoryLeaseDatabase, T> action) {
		if (this.node.generation() != generation) {
			throw new Simulation.ProcessEnded();
		}
		this.node.beforeSending(statement);
		// A paused process sends nothing until it resumes: what it decided before waits
		// too.
		this.node.resume(generation);
		long sent = this.simulation.now();
		boolean sentInFaults = this.simulation.faultPhase();
		long deadline = sent + this.timeoutNanos;
		InMemoryLeaseDatabase server = this.database.server();
		if (!this.database.reachable(this.node.id())) {
			// Refused at once, or lost on the way until the timeout.
			if (this.simulation.random().nextBoolean()) {
				this.simulation.advanceTo(deadline);
				this.node.resume(generation);
				throw timedOut(statement, "no answer from the database");
			}
			this.simulation.advanceTo(sent + this.simulation.latency());
			this.node.resume(generation);
			throw new IllegalStateException("database unreachable: " + statement, new ConnectException("refused"));
		}
		this.simulation.advanceTo(sent + this.simulation.latency());
		// At the server: wait for a stall, and a single-row change of holder for its
		// fence row.
		this.simulation.advanceTo(Math.min(this.database.stalledUntil(), deadline + this.timeoutNanos));
		while (waitsWhile != null && waitsWhile.test(server) && this.simulation.now() < deadline) {
			this.simulation.step(deadline);
		}
		if (server != this.database.server() || !this.database.reachable(this.node.id())) {
			this.node.resume(generation);
			throw new IllegalStateException("connection lost before " + statement + " ran");
		}
		boolean late = this.simulation.now() >= deadline;
		if (late && this.simulation.random().nextBoolean()) {
			// The client gave up and the server cancelled the statement before it ran.
			this.node.resume(generation);
			throw timedOut(statement, "cancelled");
		}
		this.database.tick();
		this.simulation.trace(this.node.label(), statement);
		T answer = action.apply(server);
		if (sentInFaults && !this.simulation.faultPhase()) {
			// Held up by the faults until after them (a process that crashed meanwhile
			// may still have its session refreshed so): the quiet phase counts from here.
			this.simulation.faultEndedLate(this.simulation.now());
		}
		this.simulation.advanceTo(this.simulation.now() + this.simulation.latency());
		// An answer that arrived in time waits in the socket for a process that paused
		// meanwhile.
		long arrived = this.simulation.now();
		this.node.onAnswer(statement);
		this.node.resume(generation);
		if (late || arrived >= deadline) {
			throw timedOut(statement, "applied, answer too late");
		}
		if (server != this.database.server() || !this.database.reachable(this.node.id())
				|| this.simulation.loseAnswer()) {
			throw new IllegalStateException("connection lost after " + statement + " was sent");
		}
		return answer;
	}

	private static RuntimeException timedOut(String statement, String what) {
		return new IllegalStateException(statement + " timed out (" + what + ")",
				new SQLTimeoutException("statement timed out"));
	}

	@Override
	public Optional<LeaseState> find(String election) {
		return send("find", null, (server) -> server.find(election));
	}

	@Override
	public boolean create(String election, String nodeId, Duration lease) {
		return send("create", null,
				(server) -> server.asSession(nodeId, this.session, () -> server.create(election, nodeId, lease)));
	}

	@Override
	public List<LeaseState> createAll(String nodeId, List<String> elections, Duration lease) {
		return send("createAll", null,
				(server) -> server.asSession(nodeId, this.session, () -> server.createAll(nodeId, elections, lease)));
	}

	@Override
	public List<LeaseState> findAll(String nodeId, String instanceId) {
		return send("findAll", null, (server) -> server.findAll(nodeId, instanceId));
	}

	@Override
	public boolean takeOver(String election, String nodeId, LeaseObservation observed, Duration lease) {
		return send("takeOver", election, (server) -> server.asSession(nodeId, this.session,
				() -> server.takeOver(election, nodeId, observed, lease)));
	}

	@Override
	public List<LeaseState> takeOverAll(String nodeId, Map<String, LeaseObservation> observed, Duration lease) {
		return send("takeOverAll", null,
				(server) -> server.asSession(nodeId, this.session, () -> server.takeOverAll(nodeId, observed, lease)));
	}

	@Override
	public List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease) {
		return send("handOverAll", null, (server) -> server.handOverAll(fromNodeId, terms, toNodeId, lease));
	}

	@Override
	public List<LeaseState> handOverAll(String fromNodeId, Map<String, Long> terms, String toNodeId, Duration lease,
			@Nullable String decidedOn) {
		return send("handOverAll", null, (server) -> server.handOverAll(fromNodeId, terms, toNodeId, lease, decidedOn));
	}

	@Override
	public List<LeaseState> yieldAll(String nodeId, Map<String, Long> terms) {
		return send("yieldAll", null, (server) -> server.yieldAll(nodeId, terms));
	}

	@Override
	public List<LeaseState> reacquireAll(String nodeId, Map<String, Long> terms, Duration lease) {
		return send("reacquireAll", null, (server) -> {
			Runnable requestsStand = this.simulation.checker().reacquiring(server, nodeId, terms);
			List<LeaseState> reacquired = server.asSession(nodeId, this.session,
					() -> server.reacquireAll(nodeId, terms, lease));
			requestsStand.run();
			return reacquired;
		});
	}

	@Override
	public boolean handOver(String election, String fromNodeId, long term, String toNodeId, Duration lease) {
		return send("handOver", election, (server) -> server.handOver(election, fromNodeId, term, toNodeId, lease));
	}

	@Override
	public boolean yield(String election, String nodeId, long term) {
		return send("yield", election, (server) -> server.yield(election, nodeId, term));
	}

	@Override
	public boolean reacquire(String election, String nodeId, long term, Duration lease) {
		return send("reacquire", election, (server) -> {
			Runnable requestStands = this.simulation.checker().reacquiring(server, nodeId, Map.of(election, term));
			boolean reacquired = server.asSession(nodeId, this.session,
					() -> server.reacquire(election, nodeId, term, lease));
			requestStands.run();
			return reacquired;
		});
	}

	@Override
	public boolean requestHandover(String election, String nodeId) {
		return send("requestHandover", null, (server) -> server.requestHandover(election, nodeId));
	}

	@Override
	public int requestHandoverAll(String holderId, Map<String, String> targets) {
		return send("requestHandoverAll", null, (server) -> server.requestHandoverAll(holderId, targets));
	}

	@Override
	public int askToLead(String nodeId, String holderId, Collection<String> elections) {
		return send("askToLead", null, (server) -> server.askToLead(nodeId, holderId, elections));
	}

	@Override
	public boolean requestReelection(String election) {
		return send("requestReelection", null, (server) -> server.requestReelection(election));
	}

	@Override
	public Candidacy heartbeat(String nodeId, String instanceId, Duration staleAfter, long inheritVersion) {
		return heartbeat(nodeId, instanceId, "", staleAfter, inheritVersion);
	}

	@Override
	public Candidacy heartbeat(String nodeId, String instanceId, String rank, Duration staleAfter,
			long inheritVersion) {
		Candidacy candidacy = send("heartbeat", null,
				(server) -> server.heartbeat(nodeId, instanceId, rank, staleAfter, inheritVersion));
		this.session = (candidacy != Candidacy.IN_USE) ? instanceId : null;
		if (candidacy == Candidacy.IN_USE) {
			// Another instance holds the id: also where this one had it, and a failover
			// to a replica that had not applied its take-over handed it back to a crashed
			// instance.
			this.sessionSince = -1;
		}
		else if (candidacy != Candidacy.HELD) {
			this.sessionSince = this.simulation.now();
		}
		return candidacy;
	}

	@Override
	public @Nullable NodeRowSighting nodeRow(String nodeId, Duration staleAfter) {
		return send("nodeRow", null, (server) -> server.nodeRow(nodeId, staleAfter));
	}

	@Override
	public void join(String nodeId, String instanceId, Collection<String> elections) {
		send("join", null, (server) -> {
			server.join(nodeId, instanceId, elections);
			return null;
		});
	}

	@Override
	public void removeCandidate(String election, String nodeId, String instanceId) {
		send("removeCandidate", null, (server) -> {
			server.removeCandidate(election, nodeId, instanceId);
			return null;
		});
	}

	@Override
	public void leaveOtherElections(String nodeId, String instanceId, Collection<String> elections) {
		send("leaveOtherElections", null, (server) -> {
			server.leaveOtherElections(nodeId, instanceId, elections);
			return null;
		});
	}

	@Override
	public void removeCandidacies(String nodeId, String instanceId) {
		send("removeCandidacies", null, (server) -> {
			server.removeCandidacies(nodeId, instanceId);
			return null;
		});
		if (instanceId.equals(this.session)) {
			this.session = null;
		}
	}

	@Override
	public void purge(Duration maxAge) {
		this.staleAtLastPurge = send("purge", null, (server) -> server.purge(maxAge, this.staleAtLastPurge));
	}

	/** A new process: its repository remembers no purge. */
	void restarted() {
		this.staleAtLastPurge = Map.of();
		this.session = null;
		this.sessionSince = -1;
	}

	/**
	 * @return when this process's heartbeat last created or took over its node's row
	 * (simulated time), or -1 if it has not
	 */
	long sessionSince() {
		return this.sessionSince;
	}

	@Override
	public List<Candidate> liveCandidates(String election, Duration maxAge) {
		return send("liveCandidates", null, (server) -> server.liveCandidates(election, maxAge));
	}

	/**
	 * The fence check runs at the server, then the work runs in the node while the
	 * transaction holds the fence row (no statement timeout: the transaction is as long
	 * as the work), then the commit travels to the server: it fails if the connection
	 * broke, the server failed over, or the server dropped the session for holding the
	 * transaction open longer than {@code maxHoldTime}. The simulation's checker sees
	 * every commit that succeeded, and its answer may still be lost on the way back.
	 */
	@Override
	public <T extends @Nullable Object> T runFenced(String election, String nodeId, long term, Duration maxHoldTime,
			FencedCallback<T> callback) {
		int generation = this.node.generation();
		return fenced("runFenced " + election + " term " + term, generation,
				(server, opened) -> server.runFenced(election, nodeId, term, maxHoldTime, (fencedTerm) -> {
					T done = callback.doInFence(fencedTerm);
					commit(server, generation, opened, maxHoldTime);
					this.simulation.checker().fencedCommit(server, election, nodeId, fencedTerm);
					return done;
				}));
	}

	/**
	 * A fenced transaction: it opens at the server (where the fence check runs), runs the
	 * work in the node meanwhile, and its answer may be lost on the way back.
	 * @param what for the trace
	 * @param generation the process that runs it
	 * @param transaction the transaction at the server, given the server and the time it
	 * opened
	 */
	<T> T fenced(String what, int generation, FencedTransaction<T> transaction) {
		this.node.resume(generation);
		InMemoryLeaseDatabase server = this.database.server();
		this.simulation.advanceTo(this.simulation.now() + this.simulation.latency());
		this.node.resume(generation);
		if (server != this.database.server() || !this.database.reachable(this.node.id())) {
			throw new IllegalStateException("database unreachable: " + what);
		}
		this.database.tick();
		this.simulation.trace(this.node.label(), what);
		T result = transaction.run(server, this.simulation.now());
		this.simulation.advanceTo(this.simulation.now() + this.simulation.latency());
		this.node.resume(generation);
		if (this.simulation.loseAnswer()) {
			throw new IllegalStateException("connection lost after the commit of fenced work was sent");
		}
		return result;
	}

	/**
	 * The commit of a fenced transaction travels to the server: it fails if the
	 * connection broke, the server failed over, or the server dropped the session for
	 * holding the transaction open longer than {@code maxHoldTime}.
	 * @param server the server the transaction opened on
	 * @param generation the process that runs it
	 * @param opened when it opened
	 * @param maxHoldTime how long the server keeps it open
	 */
	void commit(InMemoryLeaseDatabase server, int generation, long opened, Duration maxHoldTime) {
		this.simulation.advanceTo(this.simulation.now() + this.simulation.latency());
		this.node.resume(generation);
		if (server != this.database.server() || !this.database.reachable(this.node.id())) {
			throw new IllegalStateException("commit of fenced work failed: connection lost");
		}
		if (this.simulation.now() - opened > maxHoldTime.toNanos()) {
			throw new IllegalStateException("commit of fenced work failed: the server dropped the session");
		}
		this.database.tick();
	}

	/** A fenced transaction at the server. */
	@FunctionalInterface
	interface FencedTransaction<T> {

		T run(InMemoryLeaseDatabase server, long opened);

	}

}
