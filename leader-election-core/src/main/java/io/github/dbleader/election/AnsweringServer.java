package io.github.dbleader.election;

import org.jspecify.annotations.Nullable;

/**
 * Which database server answers one election's reads, and since when, as far as this node
 * can tell: a failover to a server that may have lost the newest writes holds the
 * election's acquisitions back for a lease (I3). Guarded by the election's monitor.
 */
final class AnsweringServer {

	private final long leaseNanos;

	/**
	 * Whether the last read showed the row acquired on another server than the one that
	 * answered (the database failed over since), and since when this node has read it so.
	 */
	private boolean onOtherServer;

	private long otherServerSinceNanos;

	/**
	 * The server that answered the last read that named one, and since when it answers.
	 */
	private @Nullable String readFrom;

	private long readFromSinceNanos;

	/**
	 * Whether, and when, this node saw another server answer than the one before (a
	 * failover).
	 */
	private boolean changed;

	private long changedAtNanos;

	/**
	 * Whether a change of the answering server was seen that the heartbeat has not told
	 * yet.
	 */
	private boolean changeUntold;

	AnsweringServer(long leaseNanos) {
		this.leaseNanos = leaseNanos;
	}

	/**
	 * A read showed the election's lease: note where the row was acquired and which
	 * server answered.
	 * @param state the lease as read
	 * @param readAtNanos when the read returned (monotonic clock)
	 * @return whether another server answered than before
	 */
	boolean readShows(LeaseState state, long readAtNanos) {
		boolean otherServer = !state.sameServer();
		if (otherServer && !this.onOtherServer) {
			this.otherServerSinceNanos = readAtNanos;
		}
		this.onOtherServer = otherServer;
		return note(state.server(), readAtNanos);
	}

	/**
	 * The read that decided this round came from the given server, although it showed
	 * nothing of the election, or the election did not decide on it.
	 * @param server the server that answered the read
	 * @param readAtNanos when the read returned (monotonic clock)
	 * @return whether another server answered than before
	 */
	boolean answered(String server, long readAtNanos) {
		if (server.equals(this.readFrom)) {
			return false;
		}
		boolean failover = this.readFrom != null;
		note(server, readAtNanos);
		if (failover && !this.onOtherServer) {
			// Whatever lease of it the new server holds and did not grant since, the read
			// that shows it counts from here: every renewal on the old server came before
			// this read.
			this.onOtherServer = true;
			this.otherServerSinceNanos = readAtNanos;
		}
		return true;
	}

	/**
	 * Note which server answered: a read from another server than the last one starts the
	 * whole-lease watch again (the new server may show what was watched before the old
	 * one went on without this node), and holds acquisitions of rows acquired elsewhere
	 * back.
	 * @param server the server, or {@code null} if the repository does not tell
	 * @param readAtNanos when the read returned (monotonic clock)
	 * @return whether another server answered than before
	 */
	boolean note(@Nullable String server, long readAtNanos) {
		if (server == null || server.equals(this.readFrom)) {
			return false;
		}
		if (this.readFrom != null) {
			this.changed = true;
			this.changedAtNanos = readAtNanos;
			this.changeUntold = true;
		}
		this.readFrom = server;
		this.readFromSinceNanos = readAtNanos;
		return true;
	}

	/**
	 * Whether a change of holder applied on the given server was decided on another
	 * server's read (the database failed over between them).
	 * @param server the server that applied it, or {@code null} if unknown
	 * @return {@code true} if it differs from the one that answered the last read
	 */
	boolean differsFrom(@Nullable String server) {
		return server != null && this.readFrom != null && !server.equals(this.readFrom);
	}

	/**
	 * Whether a row acquired on another server (the database failed over since) must not
	 * be acquired yet: the old server may have granted a newer lease that the new one
	 * lost (an asynchronous replica promoted without the newest writes), whose holder
	 * believes until a lease after its last renewal there at most. That renewal came
	 * before this node's first read of the new server, so a lease after that read its
	 * belief has ended (I3).
	 * @param state the lease as read
	 * @param readAtNanos when the read returned (monotonic clock)
	 * @return {@code true} while the row must not be acquired
	 */
	boolean holdsBack(LeaseState state, long readAtNanos) {
		if (this.changed && readAtNanos - this.changedAtNanos < this.leaseNanos) {
			// Within a lease of a failover seen, also a row this node changed on the new
			// server itself, deciding on the old one's read.
			return true;
		}
		if (state.sameServer()) {
			return false;
		}
		// Two failovers in a row show rows acquired on another server before and after
		// the second: where the repository names the answering server, its change counts
		// too.
		long since = (this.readFrom != null && this.readFromSinceNanos - this.otherServerSinceNanos > 0)
				? this.readFromSinceNanos : this.otherServerSinceNanos;
		return readAtNanos - since < this.leaseNanos;
	}

	/** A change to tell again: a belief ended because the server changed. */
	void tellAgain() {
		this.changeUntold = true;
	}

	/**
	 * Whether this election's reads showed another server than before since the last call
	 * (a failover): the heartbeat says so once for the node.
	 * @return {@code true} once per change seen
	 */
	boolean takeChange() {
		boolean untold = this.changeUntold;
		this.changeUntold = false;
		return untold;
	}

}
