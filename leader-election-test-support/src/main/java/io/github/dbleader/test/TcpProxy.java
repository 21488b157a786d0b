package io.github.dbleader.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy on a loopback port that forwards to a database server, so that a test can
 * cut one node off from the database while the others keep their direct connections.
 * Plain blocking sockets, two forwarding threads per connection.
 *
 * <p>{@link #cut(Outage)} starts an outage, {@link #restore()} ends it. A
 * {@link Outage#REFUSED refused} outage resets every connection and closes the port; a
 * {@link Outage#BLACKHOLE blackhole} lets nothing through in either direction and leaves
 * new connections unanswered, like a network partition, and delivers what was held back
 * when it ends.
 */
public final class TcpProxy implements AutoCloseable {

	private static final int CONNECT_TIMEOUT_MILLIS = 5000;

	private final InetSocketAddress target;

	private final int port;

	private final ExecutorService threads;

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private final Object flow = new Object();

	/** Guarded by {@code flow}. */
	private @Nullable Outage outage;

	/** Guarded by {@code flow}; {@code null} while the port is closed. */
	private @Nullable ServerSocket listener;

	/** Guarded by {@code flow}. */
	private long bytesHeld;

	/** Guarded by {@code flow}. */
	private boolean closed;

	private TcpProxy(InetSocketAddress target) throws IOException {
		this.target = target;
		AtomicInteger count = new AtomicInteger();
		this.threads = Executors.newCachedThreadPool((runnable) -> {
			Thread thread = new Thread(runnable, "tcp-proxy-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
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
		try {
			return new TcpProxy(target);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** @return the loopback port clients connect to */
	public int port() {
		return this.port;
	}

	/** @return the address clients connect to */
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

	/** End the outage: accept connections again and deliver what was held back. */
	public void restore() {
		synchronized (this.flow) {
			if (this.listener == null && !this.closed) {
				try {
					listen(bind(this.port));
				}
				catch (IOException ex) {
					throw new UncheckedIOException("Could not listen on port " + this.port + " again", ex);
				}
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

	@Override
	public void close() {
		synchronized (this.flow) {
			this.closed = true;
			closeListener();
			this.links.forEach(Link::reset);
			this.flow.notifyAll();
		}
		this.threads.shutdownNow();
	}

	private static ServerSocket bind(int port) throws IOException {
		ServerSocket socket = new ServerSocket();
		socket.setReuseAddress(true);
		socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
		return socket;
	}

	private void listen(ServerSocket socket) {
		this.listener = socket;
		this.threads.execute(() -> {
			while (true) {
				Socket client;
				try {
					client = socket.accept();
				}
				catch (IOException ex) {
					return; // the port was closed
				}
				this.threads.execute(() -> open(client));
			}
		});
	}

	private void closeListener() {
		ServerSocket socket = this.listener;
		this.listener = null;
		if (socket != null) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
		}
	}

	private void open(Socket client) {
		Socket server = new Socket();
		Link link = new Link(client, server);
		this.links.add(link);
		try {
			// A new connection during a blackhole stays unanswered until the outage ends.
			awaitFlow(0, false);
			server.connect(this.target, CONNECT_TIMEOUT_MILLIS);
			this.threads.execute(() -> forward(link, client, server, true));
			this.threads.execute(() -> forward(link, server, client, false));
		}
		catch (IOException | InterruptedException ex) {
			link.reset();
		}
	}

	private void forward(Link link, Socket from, Socket to, boolean fromClient) {
		byte[] buffer = new byte[8192];
		try {
			InputStream in = from.getInputStream();
			OutputStream out = to.getOutputStream();
			int read;
			while ((read = in.read(buffer)) >= 0) {
				awaitFlow(read, fromClient);
				out.write(buffer, 0, read);
				out.flush();
			}
			link.close();
		}
		catch (IOException | InterruptedException ex) {
			link.reset();
		}
	}

	private void awaitFlow(int bytes, boolean fromClient) throws IOException, InterruptedException {
		synchronized (this.flow) {
			long held = (this.outage == Outage.BLACKHOLE && fromClient) ? bytes : 0;
			this.bytesHeld += held;
			try {
				while (this.outage == Outage.BLACKHOLE && !this.closed) {
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

	/** What clients of the proxy see during an outage. */
	public enum Outage {

		/**
		 * Every connection is reset and the port is closed: new connections are refused at
		 * once, as when the database server is down.
		 */
		REFUSED,

		/**
		 * Nothing passes in either direction and new connections get no answer, as in a
		 * network partition: clients wait until their own timeouts. What was held back is
		 * delivered when the outage ends.
		 */
		BLACKHOLE

	}

	private final class Link {

		private final Socket client;

		private final Socket server;

		Link(Socket client, Socket server) {
			this.client = client;
			this.server = server;
		}

		/** Close both sides with a reset, so that each peer sees the connection fail at once. */
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

		private static void closeQuietly(Socket socket) {
			try {
				socket.close();
			}
			catch (IOException ex) {
				// already closed
			}
		}

	}

}
