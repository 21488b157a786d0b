package io.github.dbleader.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy on a loopback port in front of a database server, with the faults a network
 * can have, so that a test can afflict one node's connections while the others keep
 * theirs. Every fault applies to every connection of the proxy, open or new:
 * <ul>
 * <li>{@link #cut(Outage)} and {@link #restore()}: an outage, either
 * {@link Outage#REFUSED refused} (connections reset, port closed, as when the server is
 * down) or a {@link Outage#BLACKHOLE blackhole} (nothing passes and new connections get
 * no answer, as in a network partition; what was held back is delivered in order when it
 * ends, as TCP would retransmit it). {@link #bytesHeld()} tells that a client's bytes
 * wait at the blackhole.
 * <li>{@link #delayReplies(Duration)}: every chunk the server sends reaches the client
 * that much later, in order (a slow database, as the client sees it).
 * <li>{@link #loseRepliesTo(String)}: a statement whose text contains a fragment still
 * reaches the server (and commits there), but its reply is lost, and so is everything
 * else the server sends on that connection: an ambiguous commit. {@link #lostReplies()}
 * and {@link #firstLossMillis()} tell what was lost.
 * <li>{@link #onStatement(String, Runnable)}: once a statement whose text contains a
 * fragment has reached the server, run an action (pause a process, cut the network)
 * before the client may see the reply: a fault at a chosen point of a transaction.
 * </ul>
 * {@link #heal()} lifts every fault. Statement fragments are matched within each chunk a
 * client writes, which holds for the short statements of the election and its fenced
 * transactions.
 *
 * <p>
 * Plain blocking sockets on daemon threads, three per connection: client to server, and
 * server to client split into a reader that timestamps each chunk as it arrives and a
 * writer that delivers it at its time.
 */
public final class TcpProxy implements AutoCloseable {

	private static final int CONNECT_TIMEOUT_MILLIS = 5000;

	private static final int BUFFER_SIZE = 16384;

	/** Marks the end of the server's stream in a connection's queue of replies. */
	private static final byte[] END = new byte[0];

	private final String name;

	private final InetSocketAddress target;

	private final int port;

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private final AtomicInteger connections = new AtomicInteger();

	/** Guards the outage, the port, the held bytes and each link's held replies. */
	private final Object flow = new Object();

	/** Guarded by {@code flow}. */
	private @Nullable Outage outage;

	/** Guarded by {@code flow}; {@code null} while the port is closed. */
	private @Nullable ServerSocket listener;

	private @Nullable Thread acceptor;

	/** Guarded by {@code flow}. */
	private long bytesHeld;

	/** Guarded by {@code flow}. */
	private boolean closed;

	private volatile long replyDelayNanos;

	private volatile byte @Nullable [] loseRepliesTo;

	private final AtomicReference<@Nullable Trigger> trigger = new AtomicReference<>();

	private volatile @Nullable RequestObserver requestObserver;

	private final AtomicInteger lostReplies = new AtomicInteger();

	private final AtomicLong firstLossMillis = new AtomicLong();

	private TcpProxy(String name, InetSocketAddress target) throws IOException {
		this.name = name;
		this.target = target;
		ServerSocket socket = bind(0);
		this.port = socket.getLocalPort();
		synchronized (this.flow) {
			listen(socket);
		}
	}

	/**
	 * Start a proxy on a free loopback port.
	 * @param target the server to forward to
	 * @return the running proxy; close it after the test
	 */
	public static TcpProxy start(InetSocketAddress target) {
		return start("tcp-proxy", target);
	}

	/**
	 * Start a proxy on a free loopback port, with a name for its threads and messages.
	 * @param name e.g. the id of the node whose connections go through it
	 * @param target the server to forward to
	 * @return the running proxy; close it after the test
	 */
	public static TcpProxy start(String name, InetSocketAddress target) {
		try {
			return new TcpProxy(name, target);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * @return the loopback port clients connect to
	 */
	public int port() {
		return this.port;
	}

	/**
	 * @return the address clients connect to
	 */
	public InetSocketAddress address() {
		return new InetSocketAddress(InetAddress.getLoopbackAddress(), this.port);
	}

	/**
	 * Start an outage (or change its kind).
	 * @param outage what the clients see
	 */
	public void cut(Outage outage) {
		synchronized (this.flow) {
			this.outage = outage;
			if (outage == Outage.REFUSED) {
				closeListener();
				this.links.forEach(Link::reset);
			}
			this.flow.notifyAll();
		}
	}

	/**
	 * End the outage: accept connections again and deliver what was held back, in order.
	 */
	public void restore() {
		synchronized (this.flow) {
			if (this.listener == null && !this.closed) {
				listen(bindAgain());
			}
			this.outage = null;
			this.flow.notifyAll();
		}
	}

	/**
	 * Bytes that clients sent during a blackhole and that wait to be delivered.
	 * @return the number of bytes held back
	 */
	public long bytesHeld() {
		synchronized (this.flow) {
			return this.bytesHeld;
		}
	}

	/**
	 * Delay every chunk the server sends from now on by this much.
	 * @param delay the delay, zero for none
	 */
	public void delayReplies(Duration delay) {
		this.replyDelayNanos = delay.toNanos();
	}

	/**
	 * From now on, lose the reply to every statement whose text contains the fragment,
	 * and the rest of that connection's replies. The statement itself reaches the server.
	 * @param sqlFragment e.g. {@code "SET renewed_at"} for the renewal of a lease
	 */
	public void loseRepliesTo(String sqlFragment) {
		this.loseRepliesTo = sqlFragment.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Stop losing the replies of new statements. Connections that lost a reply stay
	 * silent: their client has to give up on them.
	 */
	public void stopLosingReplies() {
		this.loseRepliesTo = null;
	}

	/**
	 * @return how many statements' replies were lost (one per connection at most)
	 */
	public int lostReplies() {
		return this.lostReplies.get();
	}

	/**
	 * @return wall-clock time of the first lost reply in epoch milliseconds, 0 if none
	 */
	public long firstLossMillis() {
		return this.firstLossMillis.get();
	}

	/**
	 * Once, when a statement whose text contains the fragment has been sent on to the
	 * server, run the action before that connection's client can see the reply. Replaces
	 * an action that has not run yet.
	 * @param sqlFragment e.g. {@code "LOCK IN SHARE MODE"} for the fence of a fenced
	 * transaction on MySQL
	 * @param action what to do then, on the proxy's thread
	 */
	public void onStatement(String sqlFragment, Runnable action) {
		this.trigger.set(new Trigger(sqlFragment.getBytes(StandardCharsets.UTF_8), action));
	}

	/**
	 * From now on, show every chunk that a client sends to an observer before it is
	 * forwarded, e.g. {@link WireStatements}, which counts the statements the server
	 * runs.
	 * @param observer the observer, {@code null} for none
	 */
	public void observeRequests(@Nullable RequestObserver observer) {
		this.requestObserver = observer;
	}

	/** Lift every fault: no pending action, no lost replies, no delay, no outage. */
	public void heal() {
		this.trigger.set(null);
		stopLosingReplies();
		delayReplies(Duration.ZERO);
		restore();
	}

	/** Close the port and reset every connection. */
	@Override
	public void close() {
		synchronized (this.flow) {
			this.closed = true;
			closeListener();
			this.links.forEach(Link::reset);
			this.flow.notifyAll();
		}
	}

	@Override
	public String toString() {
		return "proxy " + this.name + " :" + this.port + " -> " + this.target;
	}

	private static ServerSocket bind(int port) throws IOException {
		ServerSocket socket = new ServerSocket();
		socket.setReuseAddress(true);
		socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
		return socket;
	}

	/**
	 * Bind the proxy's port again after a refused outage, retrying for a moment in case
	 * the closed socket's accepting thread did not leave {@code accept} in time.
	 */
	private ServerSocket bindAgain() {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (true) {
			try {
				return bind(this.port);
			}
			catch (BindException ex) {
				if (System.nanoTime() - deadline > 0) {
					throw new UncheckedIOException("Could not listen on port " + this.port + " again", ex);
				}
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not listen on port " + this.port + " again", ex);
			}
		}
	}

	private void listen(ServerSocket socket) {
		this.listener = socket;
		this.acceptor = thread("accept", () -> {
			while (true) {
				Socket client;
				try {
					client = socket.accept();
				}
				catch (IOException ex) {
					return; // the port was closed
				}
				int number = this.connections.incrementAndGet();
				thread(number + "-open", () -> open(client, number));
			}
		});
	}

	/**
	 * Close the port, and wait until its accepting thread has left {@code accept}: until
	 * then the kernel keeps the port listening and completes new connections' handshakes,
	 * so a client could still connect during a refused outage.
	 */
	private void closeListener() {
		ServerSocket socket = this.listener;
		Thread thread = this.acceptor;
		this.listener = null;
		this.acceptor = null;
		if (socket != null) {
			closeQuietly(socket);
		}
		if (thread != null) {
			try {
				thread.join(TimeUnit.SECONDS.toMillis(5));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void open(Socket client, int number) {
		Socket server = new Socket();
		Link link = new Link(client, server, number);
		this.links.add(link);
		try {
			// A new connection during a blackhole stays unanswered until the outage ends.
			awaitFlow(null, 0);
			server.connect(this.target, CONNECT_TIMEOUT_MILLIS);
			client.setTcpNoDelay(true);
			server.setTcpNoDelay(true);
			link.start();
		}
		catch (IOException | InterruptedException ex) {
			link.reset();
		}
	}

	/**
	 * Wait while the traffic may not pass.
	 * @param repliesOf the link whose replies are about to pass, {@code null} for traffic
	 * from a client
	 * @param bytes the bytes from a client that wait, counted as held during a blackhole
	 * @throws IOException if the connection was refused or the proxy closed meanwhile
	 */
	private void awaitFlow(@Nullable Link repliesOf, int bytes) throws IOException, InterruptedException {
		synchronized (this.flow) {
			long held = (this.outage == Outage.BLACKHOLE) ? bytes : 0;
			this.bytesHeld += held;
			try {
				while ((this.outage == Outage.BLACKHOLE || (repliesOf != null && repliesOf.holdReplies))
						&& !this.closed) {
					this.flow.wait();
				}
			}
			finally {
				this.bytesHeld -= held;
			}
			if (this.outage == Outage.REFUSED || this.closed) {
				throw new IOException("Connection cut by the proxy");
			}
		}
	}

	private Thread thread(String role, Runnable body) {
		Thread thread = new Thread(body, this.name + "-" + role);
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	private static boolean contains(byte[] data, int length, byte[] fragment) {
		outer: for (int i = 0; i <= length - fragment.length; i++) {
			for (int j = 0; j < fragment.length; j++) {
				if (data[i + j] != fragment[j]) {
					continue outer;
				}
			}
			return true;
		}
		return false;
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// closing anyway
		}
	}

	/** Sees what clients send, chunk by chunk, in order per connection. */
	@FunctionalInterface
	public interface RequestObserver {

		/**
		 * A client sent a chunk; called on that connection's thread, before the chunk is
		 * forwarded.
		 * @param connection the connection's number, from 1, in the order they were
		 * accepted
		 * @param data the buffer, valid only during the call
		 * @param length how many bytes of it were sent
		 */
		void sent(int connection, byte[] data, int length);

	}

	/** What clients of the proxy see during an outage. */
	public enum Outage {

		/**
		 * Every connection is reset and the port is closed: new connections are refused
		 * at once, as when the database server is down.
		 */
		REFUSED,

		/**
		 * Nothing passes in either direction and new connections get no answer, as in a
		 * network partition: clients wait until their own timeouts. What was held back is
		 * delivered when the outage ends.
		 */
		BLACKHOLE

	}

	/** One client connection and its connection to the server. */
	private final class Link {

		private final Socket client;

		private final Socket server;

		private final int number;

		private final BlockingQueue<Chunk> replies = new LinkedBlockingQueue<>();

		/** Whether this connection's replies are lost from now on. */
		private volatile boolean repliesLost;

		/**
		 * Whether replies wait for a statement's action to finish; guarded by
		 * {@code flow}.
		 */
		private boolean holdReplies;

		Link(Socket client, Socket server, int number) {
			this.client = client;
			this.server = server;
			this.number = number;
		}

		void start() {
			thread(this.number + "-requests", this::forwardRequests);
			thread(this.number + "-replies-in", this::readReplies);
			thread(this.number + "-replies-out", this::writeReplies);
		}

		/**
		 * Client to server: held during an outage; arms lost replies and statement
		 * actions.
		 */
		private void forwardRequests() {
			byte[] buffer = new byte[BUFFER_SIZE];
			try {
				InputStream in = this.client.getInputStream();
				OutputStream out = this.server.getOutputStream();
				int read;
				while ((read = in.read(buffer)) >= 0) {
					awaitFlow(null, read);
					RequestObserver observer = TcpProxy.this.requestObserver;
					if (observer != null) {
						observer.sent(this.number, buffer, read);
					}
					Trigger armed = TcpProxy.this.trigger.get();
					boolean fire = armed != null && contains(buffer, read, armed.fragment())
							&& TcpProxy.this.trigger.compareAndSet(armed, null);
					if (fire) {
						synchronized (TcpProxy.this.flow) {
							this.holdReplies = true;
						}
					}
					byte[] lose = TcpProxy.this.loseRepliesTo;
					if (lose != null && !this.repliesLost && contains(buffer, read, lose)) {
						this.repliesLost = true;
						TcpProxy.this.firstLossMillis.compareAndSet(0, System.currentTimeMillis());
						TcpProxy.this.lostReplies.incrementAndGet();
					}
					out.write(buffer, 0, read);
					out.flush();
					if (fire) {
						runHoldingReplies(armed.action());
					}
				}
				// The client closed: what it sent before still goes through once the
				// outage ends.
				awaitFlow(null, 0);
				close();
			}
			catch (IOException | InterruptedException ex) {
				reset();
			}
		}

		private void runHoldingReplies(Runnable action) {
			try {
				action.run();
			}
			catch (RuntimeException ex) {
				// The test's action failed: report it, and let the connection carry on.
				Thread thread = Thread.currentThread();
				thread.getUncaughtExceptionHandler().uncaughtException(thread, ex);
			}
			finally {
				synchronized (TcpProxy.this.flow) {
					this.holdReplies = false;
					TcpProxy.this.flow.notifyAll();
				}
			}
		}

		/** Server to client, first half: timestamps each chunk as it arrives. */
		private void readReplies() {
			byte[] buffer = new byte[BUFFER_SIZE];
			try {
				InputStream in = this.server.getInputStream();
				int read;
				while ((read = in.read(buffer)) >= 0) {
					this.replies.add(new Chunk(Arrays.copyOf(buffer, read), deliveryTime()));
				}
			}
			catch (IOException ex) {
				// Either side went away.
			}
			finally {
				this.replies.add(new Chunk(END, deliveryTime()));
			}
		}

		private long deliveryTime() {
			return System.nanoTime() + TcpProxy.this.replyDelayNanos;
		}

		/**
		 * Server to client, second half: delivers each chunk at its time, unless held or
		 * lost.
		 */
		private void writeReplies() {
			try {
				OutputStream out = this.client.getOutputStream();
				while (true) {
					Chunk chunk = this.replies.take();
					long wait = chunk.deliverAtNanos() - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait);
					}
					awaitFlow(this, 0);
					if (chunk.data() == END) {
						break;
					}
					if (!this.repliesLost) {
						out.write(chunk.data());
						out.flush();
					}
				}
				close();
			}
			catch (IOException | InterruptedException ex) {
				reset();
			}
		}

		/**
		 * Close both sides with a reset, so that each peer sees the connection fail at
		 * once.
		 */
		void reset() {
			abort(this.client);
			abort(this.server);
			TcpProxy.this.links.remove(this);
		}

		/** Close both sides after an orderly end of one of them. */
		void close() {
			closeQuietly(this.client);
			closeQuietly(this.server);
			TcpProxy.this.links.remove(this);
		}

		private static void abort(Socket socket) {
			try {
				if (!socket.isClosed()) {
					socket.setSoLinger(true, 0);
				}
			}
			catch (IOException ex) {
				// closing anyway
			}
			closeQuietly(socket);
		}

	}

	/**
	 * A chunk the server sent.
	 *
	 * @param data its bytes, {@link #END} for the end of the stream
	 * @param deliverAtNanos when the client may see it ({@link System#nanoTime()})
	 */
	private record Chunk(byte[] data, long deliverAtNanos) {
	}

	/**
	 * A one-shot action on a statement.
	 *
	 * @param fragment what the statement's text contains
	 * @param action what to run once it reached the server
	 */
	private record Trigger(byte[] fragment, Runnable action) {
	}

}
