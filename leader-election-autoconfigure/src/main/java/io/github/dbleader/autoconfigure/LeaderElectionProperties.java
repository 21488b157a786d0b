package io.github.dbleader.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.github.dbleader.election.ElectionNames;
import io.github.dbleader.election.ElectionSettings;
import io.github.dbleader.election.InvalidElectionSettingsException;
import io.github.dbleader.election.RankOrder;
import io.github.dbleader.election.jdbc.InvalidTableNameException;
import io.github.dbleader.election.jdbc.LeaseTables;
import io.github.dbleader.election.jdbc.SqlDialect;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Configuration properties of leader election.
 *
 * <p>
 * With lease {@code L}, renew interval {@code R} and guard {@code G}: a crashed leader is
 * replaced after at most {@code L + R}; a leader stops believing it leads at the latest
 * {@code L - G} after its last successful renewal was sent. Start-up fails unless
 * {@code 0 < R <= (L - G) / 2}, {@code 0 < G < L} and the statement timeout is shorter
 * than {@code R}.
 */
@ConfigurationProperties("leader-election")
public class LeaderElectionProperties {

	static final String PREFIX = "leader-election";

	/**
	 * Whether to enable leader election. When disabled, no election runs and
	 * {@code @LeaderOnly} methods are not advised: they run on every node.
	 */
	private boolean enabled = true;

	/**
	 * Id of this node in every election: unique among running instances (ids that differ
	 * only in case are different nodes) and human readable, at most 255 characters, not
	 * ending with a space. Defaults to "hostname:port:pid", with the port of the web
	 * server when it is known at start-up ("hostname:pid" otherwise).
	 */
	private @Nullable String nodeId;

	/**
	 * Rank of this instance, at most 64 characters: while the instances differ in rank, a
	 * candidate that outranks an election's leader asks it to hand its leadership over,
	 * so that a rolling deploy moves each election once, to the first instance of the new
	 * version that is ready. Ranks compare as versions (1.10.0 above 1.9.2, 1.2-SNAPSHOT
	 * below 1.2); equal ranks never move leadership, and the partitions of partition
	 * groups move by their balance only. Defaults to the application's version
	 * (spring.application.version, which Spring Boot reads from the
	 * Implementation-Version of the application's jar manifest), or empty, the lowest
	 * rank, when it is unknown. Set the same value on every instance to turn the moves
	 * off.
	 */
	private @Nullable String rank;

	/**
	 * How long a lease lasts at the database after each renewal. A crashed leader is
	 * replaced after about lease-duration plus renew-interval.
	 */
	private Duration leaseDuration = Duration.ofSeconds(10);

	/**
	 * How often every node talks to the database: the leader renews its lease, followers
	 * check whether it expired. At most half of lease-duration minus guard.
	 */
	private Duration renewInterval = Duration.ofSeconds(2);

	/**
	 * How much earlier than the database the leader stops believing it leads; absorbs
	 * differences of clock rate between nodes. Defaults to a fifth of lease-duration.
	 */
	private @Nullable Duration guard;

	/**
	 * Limit of every statement the election sends (query timeout and socket timeout), and
	 * of the wait for a connection of the dedicated pool. Shorter than renew-interval;
	 * defaults to half of it.
	 */
	private @Nullable Duration statementTimeout;

	/**
	 * Whether a leader gives its leases up when the application shuts down normally, so
	 * that another node takes over within one renew interval instead of a whole lease.
	 */
	private boolean releaseOnShutdown = true;

	/**
	 * Whether this node campaigns only while the application is ready, its readiness
	 * state accepting traffic (Spring Boot's application availability): it takes no
	 * leadership before the application has started, and while readiness refuses traffic
	 * (as from the start of a web application's shutdown) it gives its leadership up and
	 * stands down. Without Boot's application availability the node campaigns from
	 * start-up on. The partitions of partition groups are not affected.
	 */
	private boolean followReadiness = true;

	/**
	 * Names of the elections this node joins at start-up (1 to 128 characters each, not
	 * ending with a space; names that differ only in case are different elections),
	 * besides those that @LeaderOnly beans name, which are joined at start-up too. Others
	 * are joined on first use. Empty for none: a node that only takes cluster locks then
	 * sends no heartbeat statement at all.
	 */
	private List<String> elections = new ArrayList<>(Arrays.asList("default"));

	private final Jdbc jdbc = new Jdbc();

	private final Metrics metrics = new Metrics();

	private final LeaderOnly leaderOnly = new LeaderOnly();

	private final ScopedServices scopedServices = new ScopedServices();

	private final Locks locks = new Locks();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getNodeId() {
		return this.nodeId;
	}

	public void setNodeId(@Nullable String nodeId) {
		this.nodeId = nodeId;
	}

	public @Nullable String getRank() {
		return this.rank;
	}

	public void setRank(@Nullable String rank) {
		this.rank = rank;
	}

	public Duration getLeaseDuration() {
		return this.leaseDuration;
	}

	public void setLeaseDuration(Duration leaseDuration) {
		this.leaseDuration = leaseDuration;
	}

	public Duration getRenewInterval() {
		return this.renewInterval;
	}

	public void setRenewInterval(Duration renewInterval) {
		this.renewInterval = renewInterval;
	}

	public @Nullable Duration getGuard() {
		return this.guard;
	}

	public void setGuard(@Nullable Duration guard) {
		this.guard = guard;
	}

	public @Nullable Duration getStatementTimeout() {
		return this.statementTimeout;
	}

	public void setStatementTimeout(@Nullable Duration statementTimeout) {
		this.statementTimeout = statementTimeout;
	}

	public boolean isReleaseOnShutdown() {
		return this.releaseOnShutdown;
	}

	public void setReleaseOnShutdown(boolean releaseOnShutdown) {
		this.releaseOnShutdown = releaseOnShutdown;
	}

	public boolean isFollowReadiness() {
		return this.followReadiness;
	}

	public void setFollowReadiness(boolean followReadiness) {
		this.followReadiness = followReadiness;
	}

	public List<String> getElections() {
		return this.elections;
	}

	public void setElections(List<String> elections) {
		this.elections = elections;
	}

	public Jdbc getJdbc() {
		return this.jdbc;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public LeaderOnly getLeaderOnly() {
		return this.leaderOnly;
	}

	public ScopedServices getScopedServices() {
		return this.scopedServices;
	}

	public Locks getLocks() {
		return this.locks;
	}

	/**
	 * Determine the timing of the elections, applying the defaults of guard and statement
	 * timeout.
	 * @return validated settings
	 * @throws InvalidLeaderElectionPropertyException if a value is invalid or the values
	 * do not fit together
	 */
	public ElectionSettings determineElectionSettings() {
		// The rules are the core's (ElectionSettings); this names the properties they
		// came from.
		Duration guard = (this.guard != null || this.leaseDuration == null) ? this.guard
				: ElectionSettings.defaultGuard(this.leaseDuration);
		Duration timeout = (this.statementTimeout != null || this.renewInterval == null) ? this.statementTimeout
				: ElectionSettings.defaultStatementTimeout(this.renewInterval);
		try {
			return new ElectionSettings(this.leaseDuration, this.renewInterval, guard, timeout);
		}
		catch (InvalidElectionSettingsException ex) {
			throw invalid(ex);
		}
	}

	private static InvalidLeaderElectionPropertyException invalid(InvalidElectionSettingsException ex) {
		String property = switch (ex.setting()) {
			case "leaseDuration" -> "lease-duration";
			case "renewInterval" -> "renew-interval";
			case "statementTimeout" -> "statement-timeout";
			default -> ex.setting();
		};
		return switch (ex.rule()) {
			case POSITIVE -> invalid(property, ex.value(), "the duration must be positive",
					"a positive duration such as 10s or 500ms");
			case GUARD_SHORTER_THAN_LEASE ->
				invalid(property, ex.value(), "the guard must be shorter than lease-duration (" + ex.bound() + ")",
						"a positive duration shorter than lease-duration, by default a fifth of it");
			case RENEW_INTERVAL_AT_MOST_HALF_THE_BELIEF -> invalid(property, ex.value(),
					"a failed renewal must be retried at least once before the leader's belief ends, which needs "
							+ "renew-interval <= (lease-duration - guard) / 2 = " + ex.bound(),
					"at most " + ex.bound() + " with these values; or raise lease-duration");
			case STATEMENT_TIMEOUT_SHORTER_THAN_RENEW_INTERVAL -> invalid(property, ex.value(),
					"a statement must time out before the next renewal is due (renew-interval " + ex.bound() + ")",
					"a positive duration shorter than renew-interval, by default half of it");
		};
	}

	/**
	 * Determine the rank of this instance.
	 * @param applicationVersion the application's version, if known
	 * @return the rank: the configured one, or the application's version (at most
	 * {@value RankOrder#MAX_RANK_LENGTH} characters of it), or empty
	 * @throws InvalidLeaderElectionPropertyException if the configured rank is longer
	 * than {@value RankOrder#MAX_RANK_LENGTH} characters
	 */
	public String determineRank(@Nullable String applicationVersion) {
		if (this.rank == null) {
			String version = (applicationVersion != null) ? applicationVersion.strip() : "";
			return version.substring(0, Math.min(version.length(), RankOrder.MAX_RANK_LENGTH));
		}
		if (this.rank.length() > RankOrder.MAX_RANK_LENGTH) {
			throw invalid("rank", this.rank, "it has " + this.rank.length() + " characters",
					"at most " + RankOrder.MAX_RANK_LENGTH + " characters, usually the application's version");
		}
		return this.rank;
	}

	/**
	 * Determine this node's id.
	 * @param defaultNodeId the id to use when none is configured
	 * @return the node id
	 * @throws InvalidLeaderElectionPropertyException if the configured id breaks the
	 * rules of {@link ElectionNames#nodeId}
	 */
	public String determineNodeId(String defaultNodeId) {
		if (this.nodeId == null) {
			return defaultNodeId;
		}
		try {
			ElectionNames.nodeId(this.nodeId);
		}
		catch (IllegalArgumentException ex) {
			throw invalid("node-id", this.nodeId, ex.getMessage(), "1 to " + ElectionNames.MAX_NODE_ID_LENGTH
					+ " characters, not ending with a space, unique among running instances");
		}
		return this.nodeId;
	}

	/**
	 * Determine the elections to join at start-up.
	 * @return the election names, without duplicates
	 * @throws InvalidLeaderElectionPropertyException if a name breaks the rules of
	 * {@link ElectionNames#election}
	 */
	public List<String> determineElections() {
		// A set: an application with one election per tenant lists 100,000 names.
		Set<String> names = new LinkedHashSet<>();
		for (String name : this.elections) {
			try {
				ElectionNames.election(name);
			}
			catch (IllegalArgumentException ex) {
				throw invalid("elections", this.elections, ex.getMessage(),
						"a list of names of 1 to " + ElectionNames.MAX_ELECTION_NAME_LENGTH
								+ " characters each, not ending with a space, not starting with '"
								+ ElectionNames.LOCK_NAME_PREFIX + "' or '" + ElectionNames.PARTITION_NAME_PREFIX
								+ "'");
			}
			names.add(name);
		}
		return List.copyOf(names);
	}

	static InvalidLeaderElectionPropertyException invalid(String property, @Nullable Object value, String reason,
			String allowed) {
		return new InvalidLeaderElectionPropertyException(PREFIX + "." + property, value, reason, allowed);
	}

	/**
	 * Properties of the lease tables and the connections of the election.
	 */
	public static class Jdbc {

		/**
		 * JDBC URL of a database for the election alone, instead of one of the
		 * application's DataSource beans. The starter then builds a DataSource of its own
		 * on it, and its fenced transactions only fence writes made to that database.
		 */
		private @Nullable String url;

		/**
		 * Login user of the database given by url.
		 */
		private @Nullable String username;

		/**
		 * Login password of the database given by url.
		 */
		private @Nullable String password;

		/**
		 * Name of the lease table: a plain identifier (letters, digits, underscores; at
		 * most 57 characters). The fence, nodes and pins tables are named after it, with
		 * "_fence", "_nodes" and "_pins" appended.
		 */
		private String tableName = "leader_election_lease";

		/**
		 * Name of the candidates table: a plain identifier (letters, digits, underscores;
		 * at most 63 characters).
		 */
		private String candidateTableName = "leader_election_candidate";

		/**
		 * When to create the tables: when the election starts, after Flyway or Liquibase
		 * migrations; while the database does not answer, every renew interval until it
		 * does. Safe when several nodes create them at once.
		 */
		private DatabaseInitializationMode initializeSchema = DatabaseInitializationMode.EMBEDDED;

		/**
		 * Database platform of the SQL dialect and schema script: mysql (also for
		 * MariaDB), mariadb, postgresql or h2. Detected when not set: from the JDBC URL
		 * of the election's DataSource if it tells one, else from the database once it
		 * answers.
		 */
		private @Nullable String platform;

		/**
		 * Whether the election's statements use a small connection pool of their own,
		 * built from the settings of the election's HikariCP DataSource, so that renewals
		 * do not starve when business load exhausts the application's pool. Ignored (the
		 * election's DataSource is used) when that is not a HikariCP pool.
		 */
		private boolean dedicatedPool = true;

		/**
		 * Maximum size of the dedicated pool.
		 */
		private int dedicatedPoolSize = 2;

		public @Nullable String getUrl() {
			return this.url;
		}

		public void setUrl(@Nullable String url) {
			this.url = url;
		}

		public @Nullable String getUsername() {
			return this.username;
		}

		public void setUsername(@Nullable String username) {
			this.username = username;
		}

		public @Nullable String getPassword() {
			return this.password;
		}

		public void setPassword(@Nullable String password) {
			this.password = password;
		}

		public String getTableName() {
			return this.tableName;
		}

		public void setTableName(String tableName) {
			this.tableName = tableName;
		}

		public String getCandidateTableName() {
			return this.candidateTableName;
		}

		public void setCandidateTableName(String candidateTableName) {
			this.candidateTableName = candidateTableName;
		}

		public DatabaseInitializationMode getInitializeSchema() {
			return this.initializeSchema;
		}

		public void setInitializeSchema(DatabaseInitializationMode initializeSchema) {
			this.initializeSchema = initializeSchema;
		}

		public @Nullable String getPlatform() {
			return this.platform;
		}

		public void setPlatform(@Nullable String platform) {
			this.platform = platform;
		}

		public boolean isDedicatedPool() {
			return this.dedicatedPool;
		}

		public void setDedicatedPool(boolean dedicatedPool) {
			this.dedicatedPool = dedicatedPool;
		}

		public int getDedicatedPoolSize() {
			return this.dedicatedPoolSize;
		}

		public void setDedicatedPoolSize(int dedicatedPoolSize) {
			this.dedicatedPoolSize = dedicatedPoolSize;
		}

		/**
		 * Determine the table names.
		 * @return validated names
		 * @throws InvalidLeaderElectionPropertyException if a name is not a plain
		 * identifier or both are the same
		 */
		public LeaseTables determineLeaseTables() {
			// The rules are the core's (LeaseTables); this names the property each name
			// came from.
			try {
				return new LeaseTables(this.tableName, this.candidateTableName);
			}
			catch (InvalidTableNameException ex) {
				throw invalid((ex.table() == InvalidTableNameException.Table.LEASE) ? "jdbc.table-name"
						: "jdbc.candidate-table-name", ex.name(), ex.getMessage(), ex.allowed());
			}
		}

		/**
		 * Determine the dialect from {@link #getPlatform() platform}.
		 * @return the dialect, or {@code null} if no platform is configured
		 * @throws InvalidLeaderElectionPropertyException if the platform is not supported
		 */
		public @Nullable SqlDialect determineConfiguredDialect() {
			if (this.platform == null || this.platform.isBlank()) {
				return null;
			}
			try {
				return SqlDialect.forName(this.platform);
			}
			catch (IllegalArgumentException ex) {
				throw invalid("jdbc.platform", this.platform, "the platform is not supported", SUPPORTED_PLATFORMS);
			}
		}

		/**
		 * Determine the size of the dedicated pool.
		 * @return the size
		 * @throws InvalidLeaderElectionPropertyException if it is below 1
		 */
		public int determineDedicatedPoolSize() {
			if (this.dedicatedPoolSize < 1) {
				throw invalid("jdbc.dedicated-pool-size", this.dedicatedPoolSize, "the pool needs a connection",
						"a number of at least 1 (2 recommended); or set jdbc.dedicated-pool=false");
			}
			return this.dedicatedPoolSize;
		}

		/** The platforms, as the failure analysis lists them. */
		static final String SUPPORTED_PLATFORMS = "mysql (also for MariaDB), mariadb, postgresql or h2";

	}

	/**
	 * Properties of the cluster locks ({@code @ClusterLock}, {@code ClusterLocks}).
	 */
	public static class Locks {

		/**
		 * Longest random pause before a run under a cluster lock (@ClusterLock, a
		 * ShedLock task on the provider) tries the lock, so that when every node's
		 * scheduler fires for the same trigger, the run goes to a random node rather than
		 * to the one whose scheduler fires first. At most a quarter of the run's
		 * atLeastFor; runs without atLeastFor try at once. 0 to try at once always.
		 */
		private Duration spread = Duration.ofMillis(100);

		public Duration getSpread() {
			return this.spread;
		}

		public void setSpread(Duration spread) {
			this.spread = spread;
		}

		/**
		 * Determine the longest pause before a run tries its lock.
		 * @return the pause
		 * @throws InvalidLeaderElectionPropertyException if it is negative
		 */
		public Duration determineSpread() {
			if (this.spread.isNegative()) {
				throw invalid("locks.spread", this.spread, "a pause cannot be negative",
						"a duration such as 100ms, 0 to try at once");
			}
			return this.spread;
		}

	}

	/**
	 * Properties of the elections' meters.
	 */
	public static class Metrics {

		/**
		 * Most elections with meters of their own (leader.election.leader, .term,
		 * .transitions, .leader.only.skipped, .leader.only.runs and .leader.only.overdue,
		 * tagged election), in the order this node joins them; 0 for none. The node's
		 * totals (leader.election.elections, .elections.led, .elections.transitions)
		 * count every election, so that an application with an election per tenant keeps
		 * its heap and its metrics backend bounded. Partitions have meters per group
		 * instead.
		 */
		private int perElectionLimit = 1_000;

		public int getPerElectionLimit() {
			return this.perElectionLimit;
		}

		public void setPerElectionLimit(int perElectionLimit) {
			this.perElectionLimit = perElectionLimit;
		}

		/**
		 * Determine the most elections with meters of their own.
		 * @return the limit
		 * @throws InvalidLeaderElectionPropertyException if it is negative
		 */
		public int determinePerElectionLimit() {
			if (this.perElectionLimit < 0) {
				throw invalid("metrics.per-election-limit", this.perElectionLimit, "the limit cannot be negative",
						"a number of elections, 0 for none (the node's totals count them all)");
			}
			return this.perElectionLimit;
		}

	}

	/**
	 * Properties of the runs of {@code @LeaderOnly} methods.
	 */
	public static class LeaderOnly {

		/**
		 * How many ended calls of @LeaderOnly methods (completed, failed, refused by the
		 * fence, skipped) this node keeps per election, for /actuator/leader; runs under
		 * way are shown besides them. 0 for none.
		 */
		private int historySize = 20;

		/**
		 * Longest a run of a @LeaderOnly method should take, for the methods whose
		 * annotation sets no maxRunTime. A run that takes longer goes on, but makes its
		 * election's health OUT_OF_SERVICE, counts in the gauge
		 * leader.election.leader.only.overdue and is logged at WARN. None by default.
		 */
		private @Nullable Duration maxRunTime;

		public int getHistorySize() {
			return this.historySize;
		}

		public void setHistorySize(int historySize) {
			this.historySize = historySize;
		}

		public @Nullable Duration getMaxRunTime() {
			return this.maxRunTime;
		}

		public void setMaxRunTime(@Nullable Duration maxRunTime) {
			this.maxRunTime = maxRunTime;
		}

		/**
		 * Determine how many ended calls to keep per election.
		 * @return the history size
		 * @throws InvalidLeaderElectionPropertyException if it is negative
		 */
		public int determineHistorySize() {
			if (this.historySize < 0) {
				throw invalid("leader-only.history-size", this.historySize, "the size cannot be negative",
						"a number of calls per election, 0 for none");
			}
			return this.historySize;
		}

		/**
		 * Determine the bound of the runs of methods that set none.
		 * @return the bound, or {@code null} for none
		 * @throws InvalidLeaderElectionPropertyException if it is not positive
		 */
		public @Nullable Duration determineMaxRunTime() {
			if (this.maxRunTime != null && (this.maxRunTime.isNegative() || this.maxRunTime.isZero())) {
				throw invalid("leader-only.max-run-time", this.maxRunTime, "the bound must be positive",
						"a duration such as 10m, or no value for no bound");
			}
			return this.maxRunTime;
		}

	}

	/**
	 * Properties of the leader-scoped services (beans of type LeaderScopedService).
	 */
	public static class ScopedServices {

		/**
		 * How long stopping the leader-scoped services of an election (when its
		 * leadership is revoked, or the application shuts down) waits for their threads
		 * after telling them to stop and interrupting them. A thread still running then
		 * is left behind with a warning. This node's later leadership events wait for the
		 * stop too, its heartbeat never does.
		 */
		private Duration stopTimeout = Duration.ofSeconds(10);

		public Duration getStopTimeout() {
			return this.stopTimeout;
		}

		public void setStopTimeout(Duration stopTimeout) {
			this.stopTimeout = stopTimeout;
		}

		/**
		 * Determine how long stopping the services of an election waits for them.
		 * @return the stop timeout
		 * @throws InvalidLeaderElectionPropertyException if it is negative
		 */
		public Duration determineStopTimeout() {
			if (this.stopTimeout.isNegative()) {
				throw invalid("scoped-services.stop-timeout", this.stopTimeout, "the timeout cannot be negative",
						"a duration such as 10s, 0 not to wait");
			}
			return this.stopTimeout;
		}

	}

}
