package io.github.dbleader.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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

/**
 * A TCP proxy between one node and the database server, with the faults a network can
 * have, applied to every connection of that node:
 * <ul>
 * <li>{@link #cut()}: a partition. Nothing passes in either direction; connections stay
 * open with their bytes waiting (as TCP would retransmit them), new connections are
 * accepted but get no answer. {@link #restore()} lets everything through again, in order.
 * <li>{@link #setReplyLatency(Duration)}: every chunk from the server reaches the client
 * that much later (a slow database as the client sees it).
 * <li>{@link #loseRepliesTo(String)}: a statement whose text contains the fragment still
 * reaches the server (and commits there), but its reply is lost, and so is everything
 * else the server sends on that connection: an ambiguous commit.
 * <li>{@link #onStatement(String, Runnable)}: once a statement whose text contains the
 * fragment has reached the server, run an action (pause the process, cut the network)
 * before the client may see the reply: a fault at a chosen point of a transaction.
 * </ul>
 * Plain blocking sockets; three daemon threads per connection.
 */
final class FaultProxy implements AutoCloseable {

	private static final byte[] END = new byte[0];

	private final String name;

	private final InetSocketAddress upstream;

	private final ServerSocket server;

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private final Object gate = new Object();

	/** Whether the network is cut; guarded by {@link #gate}. */
	private boolean cut;

	private volatile long replyLatencyNanos;

	private volatile byte[] loseRepliesTo;

	private final AtomicReference<Trigger> trigger = new AtomicReference<>();

	private final AtomicInteger lostReplies = new AtomicInteger();

	private final AtomicInteger connections = new AtomicInteger();

	private final AtomicLong firstLossMillis = new AtomicLong();

	private volatile boolean closed;

	FaultProxy(String name, InetSocketAddress upstream) throws IOException {
		this.name = name;
		this.upstream = upstream;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "proxy-" + name + "-accept");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/** @return the local port the node connects to */
	int port() {
		return this.server.getLocalPort();
	}

	/** Partition the node from the database: nothing passes until {@link #restore()}. */
	void cut() {
		synchronized (this.gate) {
			this.cut = true;
		}
	}

	/** End a partition; waiting bytes flow on in order. */
	void restore() {
		synchronized (this.gate) {
			this.cut = false;
			this.gate.notifyAll();
		}
	}

	/**
	 * Delay every chunk the server sends by this much, from now on.
	 * @param latency the delay, zero for none
	 */
	void setReplyLatency(Duration latency) {
		this.replyLatencyNanos = latency.toNanos();
	}

	/**
	 * From now on, lose the reply to every statement whose text contains the fragment (and
	 * the rest of that connection's replies). The statement itself reaches the server.
	 * @param sqlFragment e.g. {@code "SET renewed_at"} for the renewal of the lease
	 */
	void loseRepliesTo(String sqlFragment) {
		this.loseRepliesTo = sqlFragment.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Once, when a statement whose text contains the fragment has been sent on to the server,
	 * run the action before the client can see the reply.
	 * @param sqlFragment e.g. {@code "LOCK IN SHARE MODE"} for the fence of a fenced
	 * transaction
	 * @param action what to do then, on the proxy's thread
	 */
	void onStatement(String sqlFragment, Runnable action) {
		this.trigger.set(new Trigger(sqlFragment.getBytes(StandardCharsets.UTF_8), action));
	}

	/** Stop losing replies of new statements. */
	void stopLosingReplies() {
		this.loseRepliesTo = null;
	}

	/** @return how many statements' replies were lost */
	int lostReplies() {
		return this.lostReplies.get();
	}

	/** @return wall-clock time of the first lost reply, 0 if none */
	long firstLossMillis() {
		return this.firstLossMillis.get();
	}

	/** Lift every fault: restore, no latency, no lost replies. */
	void heal() {
		this.trigger.set(null);
		stopLosingReplies();
		setReplyLatency(Duration.ZERO);
		restore();
	}

	@Override
	public void close() {
		this.closed = true;
		closeQuietly(this.server);
		restore();
		this.links.forEach(Link::close);
	}

	@Override
	public String toString() {
		return "proxy " + this.name + " :" + port() + " -> " + this.upstream;
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				Socket database = new Socket();
				try {
					database.connect(this.upstream, 5000);
				}
				catch (IOException ex) {
					closeQuietly(client);
					closeQuietly(database);
					continue;
				}
				client.setTcpNoDelay(true);
				database.setTcpNoDelay(true);
				Link link = new Link(client, database, this.connections.incrementAndGet());
				this.links.add(link);
				link.start();
			}
			catch (IOException ex) {
				if (!this.closed) {
					sleepQuietly(10);
				}
			}
		}
	}

	private void awaitOpen(Link link) throws InterruptedException {
		synchronized (this.gate) {
			while ((this.cut || (link != null && link.holdReplies)) && !this.closed) {
				this.gate.wait();
			}
		}
	}

	private static void closeQuietly(AutoCloseable closeable) {
		try {
			closeable.close();
		}
		catch (Exception ex) {
			// Closing anyway.
		}
	}

	private static void sleepQuietly(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
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

	/** One client connection and its connection to the server. */
	private final class Link {

		private final Socket client;

		private final Socket database;

		private final int number;

		private final BlockingQueue<Chunk> replies = new LinkedBlockingQueue<>();

		private volatile boolean repliesLost;

		/** Whether replies wait for a trigger's action; guarded by the gate. */
		private boolean holdReplies;

		Link(Socket client, Socket database, int number) {
			this.client = client;
			this.database = database;
			this.number = number;
		}

		void start() {
			thread("requests", this::forwardRequests);
			thread("replies-in", this::readReplies);
			thread("replies-out", this::writeReplies);
		}

		private void thread(String role, Runnable body) {
			Thread thread = new Thread(body, "proxy-" + FaultProxy.this.name + "-" + this.number + "-" + role);
			thread.setDaemon(true);
			thread.start();
		}

		/** Client to server: held while cut; marks the connection when its reply is to be lost. */
		private void forwardRequests() {
			byte[] buffer = new byte[16384];
			try (InputStream in = this.client.getInputStream(); OutputStream out = this.database.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					awaitOpen(null);
					Trigger armed = FaultProxy.this.trigger.get();
					boolean fire = armed != null && contains(buffer, read, armed.fragment())
							&& FaultProxy.this.trigger.compareAndSet(armed, null);
					if (fire) {
						synchronized (FaultProxy.this.gate) {
							this.holdReplies = true;
						}
					}
					byte[] fragment = FaultProxy.this.loseRepliesTo;
					if (fragment != null && !this.repliesLost && contains(buffer, read, fragment)) {
						this.repliesLost = true;
						FaultProxy.this.firstLossMillis.compareAndSet(0, System.currentTimeMillis());
						FaultProxy.this.lostReplies.incrementAndGet();
					}
					out.write(buffer, 0, read);
					out.flush();
					if (fire) {
						try {
							armed.action().run();
						}
						finally {
							synchronized (FaultProxy.this.gate) {
								this.holdReplies = false;
								FaultProxy.this.gate.notifyAll();
							}
						}
					}
				}
				awaitOpen(null);
			}
			catch (IOException | InterruptedException ex) {
				// Either side went away.
			}
			finally {
				close();
			}
		}

		/** Server to client, first half: timestamps each chunk as it arrives. */
		private void readReplies() {
			byte[] buffer = new byte[16384];
			try (InputStream in = this.database.getInputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					this.replies.add(new Chunk(Arrays.copyOf(buffer, read),
							System.nanoTime() + FaultProxy.this.replyLatencyNanos));
				}
			}
			catch (IOException ex) {
				// Either side went away.
			}
			finally {
				this.replies.add(new Chunk(END, System.nanoTime() + FaultProxy.this.replyLatencyNanos));
			}
		}

		/** Server to client, second half: delivers each chunk at its time, unless cut or lost. */
		private void writeReplies() {
			try (OutputStream out = this.client.getOutputStream()) {
				while (true) {
					Chunk chunk = this.replies.take();
					long wait = chunk.deliverAtNanos - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait);
					}
					awaitOpen(this);
					if (chunk.data == END) {
						break;
					}
					if (!this.repliesLost) {
						out.write(chunk.data);
						out.flush();
					}
				}
			}
			catch (IOException | InterruptedException ex) {
				// Either side went away.
			}
			finally {
				close();
			}
		}

		void close() {
			closeQuietly(this.client);
			closeQuietly(this.database);
			FaultProxy.this.links.remove(this);
		}

	}

	private record Chunk(byte[] data, long deliverAtNanos) {
	}

	private record Trigger(byte[] fragment, Runnable action) {
	}

}
