package io.github.dbleader.election.it;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.HashSet;
import java.util.Set;

import javax.net.SocketFactory;

import com.mysql.cj.conf.PropertySet;
import com.mysql.cj.protocol.StandardSocketFactory;

/**
 * Sockets for a JDBC driver whose reads stop while the reading thread is frozen, as a
 * client process stopped by {@code SIGSTOP} or a long GC pause stops reading: its kernel
 * still acknowledges what arrives until the socket's receive buffer is full, then
 * advertises a zero window, and the server blocks sending. Unlike a real freeze, only the
 * thread that {@link #freezeCurrentThread() froze itself} stops, so that a test can
 * freeze one node's fenced work while the test goes on. A frozen read ignores the
 * socket's timeout, as a frozen process does.
 *
 * <p>
 * Name {@link #socketFactory(String)} as the driver's {@code socketFactory} property.
 */
public final class FreezingSockets {

	private static final Set<Thread> frozen = new HashSet<>();

	private FreezingSockets() {
	}

	/**
	 * The class to name as the driver's {@code socketFactory} property.
	 * @param jdbcUrl the URL, which names the driver
	 * @return the class name
	 */
	public static String socketFactory(String jdbcUrl) {
		return (jdbcUrl.startsWith("jdbc:mysql:") ? ForConnectorJ.class : ForJavaxNet.class).getName();
	}

	/** From now on, reads of this thread on these sockets wait until it is thawed. */
	public static void freezeCurrentThread() {
		synchronized (frozen) {
			frozen.add(Thread.currentThread());
		}
	}

	/**
	 * Let a frozen thread read again.
	 * @param thread the thread
	 */
	public static void thaw(Thread thread) {
		synchronized (frozen) {
			frozen.remove(thread);
			frozen.notifyAll();
		}
	}

	private static void awaitThawed() throws InterruptedIOException {
		synchronized (frozen) {
			while (frozen.contains(Thread.currentThread())) {
				try {
					frozen.wait();
				}
				catch (InterruptedException ex) {
					frozen.remove(Thread.currentThread());
					Thread.currentThread().interrupt();
					throw new InterruptedIOException("Interrupted while frozen");
				}
			}
		}
	}

	/**
	 * For PostgreSQL's pgjdbc and MariaDB Connector/J, which take a
	 * {@link SocketFactory}.
	 */
	public static final class ForJavaxNet extends SocketFactory {

		@Override
		public Socket createSocket() {
			return new FreezableSocket();
		}

		@Override
		public Socket createSocket(String host, int port) throws IOException {
			return connected(new InetSocketAddress(host, port));
		}

		@Override
		public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
			return connected(new InetSocketAddress(host, port));
		}

		@Override
		public Socket createSocket(InetAddress host, int port) throws IOException {
			return connected(new InetSocketAddress(host, port));
		}

		@Override
		public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
				throws IOException {
			return connected(new InetSocketAddress(address, port));
		}

		private static Socket connected(InetSocketAddress address) throws IOException {
			Socket socket = new FreezableSocket();
			socket.connect(address);
			return socket;
		}

	}

	/** For MySQL Connector/J, which takes a socket factory of its own. */
	public static final class ForConnectorJ extends StandardSocketFactory {

		@Override
		protected Socket createSocket(PropertySet props) {
			return new FreezableSocket();
		}

	}

	private static final class FreezableSocket extends Socket {

		@Override
		public InputStream getInputStream() throws IOException {
			return new FilterInputStream(super.getInputStream()) {

				@Override
				public int read() throws IOException {
					awaitThawed();
					return super.read();
				}

				@Override
				public int read(byte[] buffer, int offset, int length) throws IOException {
					awaitThawed();
					return super.read(buffer, offset, length);
				}

			};
		}

	}

}
