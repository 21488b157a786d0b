package io.github.dbleader.test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntConsumer;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

/**
 * The statements that clients send a server through a {@link TcpProxy}, read off the wire
 * ({@link TcpProxy#observeRequests}): each one the server runs and counts as a statement,
 * transaction control and session settings included, whatever the driver or the pool sent
 * it for. On the MySQL protocol (MySQL and MariaDB) a {@code COM_QUERY} or
 * {@code COM_STMT_EXECUTE}, as MariaDB's {@code USER_STATISTICS} counts them; pings and
 * the handshake are not statements. On PostgreSQL's a simple query ({@code Q}) or an
 * {@code Execute} of the extended protocol ({@code E}), the driver's implicit
 * {@code BEGIN} and {@code COMMIT} among them. The connection must not use TLS
 * ({@code sslMode=DISABLED}, {@code sslmode=disable}).
 */
public final class WireStatements implements TcpProxy.RequestObserver, AutoCloseable {

	private static final int POSTGRESQL_PROTOCOL_3 = 196608;

	private final boolean postgresql;

	private final Map<Integer, Connection> connections = new ConcurrentHashMap<>();

	private @Nullable TestDatabase database;

	private @Nullable TcpProxy proxy;

	private final List<String> statements = new ArrayList<>();

	/** What closes with this record: the proxy and pools it started, newest first. */
	private final Deque<AutoCloseable> owned = new ArrayDeque<>();

	private WireStatements(boolean postgresql) {
		this.postgresql = postgresql;
	}

	/**
	 * Start a proxy in front of a test database's server and record the statements that
	 * go through it; pools through it come from {@link #dataSource}.
	 * @param database a MySQL-protocol or PostgreSQL test database
	 * @return the record; close it to close its pools and the proxy
	 */
	public static WireStatements through(TestDatabase database) {
		TcpProxy proxy = TcpProxy.start("wire-" + database.name().toLowerCase(Locale.ROOT), database.serverAddress());
		WireStatements statements = record(proxy, database.platform());
		statements.owned.push(proxy);
		statements.database = database;
		statements.proxy = proxy;
		return statements;
	}

	/**
	 * A new pool whose connections go through this record's proxy in plain text.
	 * @param maxPoolSize maximum pool size
	 * @return the pool, closed with this record
	 */
	public HikariDataSource dataSource(int maxPoolSize) {
		TestDatabase database = Objects.requireNonNull(this.database, "not started by through(TestDatabase)");
		HikariDataSource dataSource = database
			.dataSource(database.plainTextUrlThrough(Objects.requireNonNull(this.proxy)), maxPoolSize);
		this.owned.push(dataSource);
		return dataSource;
	}

	/**
	 * Measure what a run costs: warm up, forget what that sent, then run again and again.
	 * @param warmUps runs before the measurement
	 * @param runs runs measured
	 * @param run one run, given its number (from 0 in the warm-up and again in the
	 * measurement)
	 * @return the statements per run, and those of the last run
	 */
	public Measurement measure(int warmUps, int runs, IntConsumer run) {
		for (int i = 0; i < warmUps; i++) {
			run.accept(i);
		}
		clear();
		List<String> last = List.of();
		for (int i = 0; i < runs; i++) {
			int before = count();
			run.accept(i);
			List<String> sent = statements();
			last = sent.subList(before, sent.size());
		}
		return new Measurement((double) count() / runs, last);
	}

	@Override
	public void close() throws Exception {
		while (!this.owned.isEmpty()) {
			this.owned.pop().close();
		}
	}

	/**
	 * Record the statements that go through a proxy from now on.
	 * @param proxy the proxy in front of the server
	 * @param platform {@code mysql} (MySQL and MariaDB) or {@code postgresql}
	 * @return the record
	 */
	public static WireStatements record(TcpProxy proxy, String platform) {
		if (!platform.equals("mysql") && !platform.equals("postgresql")) {
			throw new IllegalArgumentException("No wire protocol known for " + platform);
		}
		WireStatements statements = new WireStatements(platform.equals("postgresql"));
		proxy.observeRequests(statements);
		return statements;
	}

	@Override
	public void sent(int connection, byte[] data, int length) {
		this.connections.computeIfAbsent(connection, (number) -> new Connection()).read(data, length);
	}

	/**
	 * @return the statements recorded so far, in the order they reached the proxy
	 */
	public synchronized List<String> statements() {
		return List.copyOf(this.statements);
	}

	/**
	 * @return how many statements were recorded so far
	 */
	public synchronized int count() {
		return this.statements.size();
	}

	/** Forget the statements recorded so far. */
	public synchronized void clear() {
		this.statements.clear();
	}

	private synchronized void add(String statement) {
		this.statements.add(statement);
	}

	/**
	 * What a run costs.
	 *
	 * @param perRun statements per run, on average
	 * @param lastRun the statements of the last run, in order
	 */
	public record Measurement(double perRun, List<String> lastRun) {

		@Override
		public String toString() {
			return String.format(Locale.ROOT, "%.1f statements per run; the last run's:%n  %s", this.perRun,
					String.join(String.format("%n  "), this.lastRun));
		}

	}

	/** One client connection's stream, cut into messages. */
	private final class Connection {

		private final ByteArrayOutputStream pending = new ByteArrayOutputStream();

		/** PostgreSQL: before the startup message, whose messages carry no type byte. */
		private boolean startup = true;

		/** PostgreSQL: the text of each prepared statement, by name. */
		private final Map<String, String> prepared = new HashMap<>();

		/** PostgreSQL: the statement each portal binds, by portal name. */
		private final Map<String, String> portals = new HashMap<>();

		synchronized void read(byte[] data, int length) {
			this.pending.write(data, 0, length);
			ByteBuffer buffer = ByteBuffer.wrap(this.pending.toByteArray());
			while (WireStatements.this.postgresql ? postgresqlMessage(buffer) : mysqlPacket(buffer)) {
				// one message consumed
			}
			byte[] rest = new byte[buffer.remaining()];
			buffer.get(rest);
			this.pending.reset();
			this.pending.write(rest, 0, rest.length);
		}

		/**
		 * A 3-byte length, a sequence number, and a command where the sequence starts
		 * (0).
		 */
		private boolean mysqlPacket(ByteBuffer buffer) {
			if (buffer.remaining() < 4) {
				return false;
			}
			buffer.order(ByteOrder.LITTLE_ENDIAN);
			int start = buffer.position();
			int length = (buffer.get(start) & 0xff) | (buffer.get(start + 1) & 0xff) << 8
					| (buffer.get(start + 2) & 0xff) << 16;
			int sequence = buffer.get(start + 3) & 0xff;
			if (buffer.remaining() < 4 + length) {
				return false;
			}
			byte[] payload = new byte[length];
			buffer.position(start + 4);
			buffer.get(payload);
			if (sequence == 0 && length > 0) {
				if (payload[0] == 0x03) {
					add(new String(payload, 1, length - 1, StandardCharsets.UTF_8));
				}
				else if (payload[0] == 0x17) {
					add("(execute of a server-side prepared statement)");
				}
			}
			return true;
		}

		/** Untyped startup messages first, then a type byte and a 4-byte length. */
		private boolean postgresqlMessage(ByteBuffer buffer) {
			buffer.order(ByteOrder.BIG_ENDIAN);
			int start = buffer.position();
			int header = this.startup ? 0 : 1;
			if (buffer.remaining() < header + 4) {
				return false;
			}
			int length = buffer.getInt(start + header);
			if (buffer.remaining() < header + length) {
				return false;
			}
			byte[] body = new byte[length - 4];
			buffer.position(start + header + 4);
			buffer.get(body);
			if (this.startup) {
				// An SSL or GSS request comes before the startup message proper.
				this.startup = ByteBuffer.wrap(body).getInt() != POSTGRESQL_PROTOCOL_3;
				return true;
			}
			char type = (char) buffer.get(start);
			List<String> strings = cStrings(body);
			switch (type) {
				case 'Q' -> add(strings.get(0));
				case 'P' -> this.prepared.put(strings.get(0), strings.get(1));
				case 'B' -> this.portals.put(strings.get(0), strings.get(1));
				case 'E' -> add(this.prepared.getOrDefault(this.portals.getOrDefault(strings.get(0), ""), "?"));
				default -> {
				}
			}
			return true;
		}

		/** The message's leading zero-terminated strings (up to two). */
		private static List<String> cStrings(byte[] body) {
			List<String> strings = new ArrayList<>();
			int from = 0;
			for (int i = 0; i < body.length && strings.size() < 2; i++) {
				if (body[i] == 0) {
					strings.add(new String(body, from, i - from, StandardCharsets.UTF_8));
					from = i + 1;
				}
			}
			while (strings.size() < 2) {
				strings.add("");
			}
			return strings;
		}

	}

}
