package io.github.dbleader.election;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The names the lease table holds, and their rules, in one place: node ids, election
 * names, the rows of cluster locks ({@value #LOCK_NAME_PREFIX}{@code <name>}) and the
 * elections of partition groups ({@value #PARTITION_NAME_PREFIX}{@code <group>:<n>}).
 * Every check of a name, in the core and in the auto-configuration's properties, is one
 * of these methods, so a name is refused the same way, with the same message, wherever it
 * comes from.
 */
public final class ElectionNames {

	/** Longest node id the lease table accepts. */
	public static final int MAX_NODE_ID_LENGTH = 255;

	/** Longest election name the lease table accepts (its key column). */
	public static final int MAX_ELECTION_NAME_LENGTH = 128;

	/**
	 * Prefix of the lease rows of cluster locks
	 * ({@code io.github.dbleader.election.lock}), which share the lease table with
	 * elections: no election name may start with it.
	 */
	public static final String LOCK_NAME_PREFIX = "lock:";

	/** Longest lock name: the lease table's key holds its prefix too. */
	public static final int MAX_LOCK_NAME_LENGTH = MAX_ELECTION_NAME_LENGTH - LOCK_NAME_PREFIX.length();

	/**
	 * What joins a lock's name and the number of one of its permits in the name of the
	 * permit's row ({@link #permitKeys}): {@code <name>::permit-<n>}. A lock that is
	 * taken, rather than read or released, may not have a name that ends like that
	 * ({@link #lockName}), so that no lock is a permit of another.
	 */
	public static final String PERMIT_SEPARATOR = "::permit-";

	/** Most permits a lock may have ({@link #permitKeys}). */
	public static final int MAX_PERMITS = 1000;

	private static final Pattern PERMIT_NAME = Pattern.compile(".*" + Pattern.quote(PERMIT_SEPARATOR) + "[0-9]+");

	/**
	 * Prefix of the elections of partition groups
	 * ({@code io.github.dbleader.election.partition}), named
	 * {@code partition:<group>:<partition>}: no other election name may start with it.
	 */
	public static final String PARTITION_NAME_PREFIX = "partition:";

	/** Longest partition group name. */
	public static final int MAX_GROUP_NAME_LENGTH = 100;

	private static final Pattern GROUP_NAME = Pattern.compile("[A-Za-z0-9._-]{1," + MAX_GROUP_NAME_LENGTH + "}");

	private ElectionNames() {
	}

	/**
	 * Check a node id.
	 * @param nodeId the id
	 * @return the id
	 * @throws IllegalArgumentException if it is blank, longer than
	 * {@value #MAX_NODE_ID_LENGTH} characters, or ends with a space
	 */
	public static String nodeId(String nodeId) {
		return check("node id", nodeId, MAX_NODE_ID_LENGTH);
	}

	/**
	 * Check the name of an election an application joins.
	 * @param name the name
	 * @return the name
	 * @throws IllegalArgumentException if it is blank, longer than
	 * {@value #MAX_ELECTION_NAME_LENGTH} characters, ends with a space, or starts with
	 * {@value #LOCK_NAME_PREFIX} or {@value #PARTITION_NAME_PREFIX}
	 */
	public static String election(String name) {
		check("election name", name, MAX_ELECTION_NAME_LENGTH);
		if (name.startsWith(LOCK_NAME_PREFIX)) {
			throw new IllegalArgumentException("election name '" + name + "' must not start with '" + LOCK_NAME_PREFIX
					+ "', which names the rows of cluster locks");
		}
		if (name.startsWith(PARTITION_NAME_PREFIX)) {
			throw new IllegalArgumentException("election name '" + name + "' must not start with '"
					+ PARTITION_NAME_PREFIX + "', which names the elections of partition groups");
		}
		return name;
	}

	/**
	 * Check the name of a partition's election.
	 * @param name the name
	 * @return the name
	 * @throws IllegalArgumentException if it is longer than
	 * {@value #MAX_ELECTION_NAME_LENGTH} characters, ends with a space, or does not start
	 * with {@value #PARTITION_NAME_PREFIX}
	 */
	public static String partitionElection(String name) {
		check("election name", name, MAX_ELECTION_NAME_LENGTH);
		if (!name.startsWith(PARTITION_NAME_PREFIX)) {
			throw new IllegalArgumentException(
					"partition election name '" + name + "' must start with '" + PARTITION_NAME_PREFIX + "'");
		}
		return name;
	}

	/**
	 * The name of the election of one partition.
	 * @param group group name
	 * @param partition the partition
	 * @return {@code partition:<group>:<partition>}
	 */
	public static String partitionElection(String group, int partition) {
		return PARTITION_NAME_PREFIX + group + ":" + partition;
	}

	/**
	 * The group of a partition election, so that views of all elections (the leader
	 * endpoint, health) can show a group as one entry instead of one per partition.
	 * @param election an election name
	 * @return the group name if {@code election} is named as the election of a partition
	 * ({@code partition:<group>:<n>}), else {@code null}
	 */
	public static @Nullable String groupOf(String election) {
		if (!election.startsWith(PARTITION_NAME_PREFIX)) {
			return null;
		}
		int separator = election.lastIndexOf(':');
		if (separator <= PARTITION_NAME_PREFIX.length() || separator == election.length() - 1) {
			return null;
		}
		for (int i = separator + 1; i < election.length(); i++) {
			if (!Character.isDigit(election.charAt(i))) {
				return null;
			}
		}
		return election.substring(PARTITION_NAME_PREFIX.length(), separator);
	}

	/**
	 * Check a partition group's name.
	 * @param name the name
	 * @return the name
	 * @throws IllegalArgumentException unless it is 1 to {@value #MAX_GROUP_NAME_LENGTH}
	 * letters, digits, '.', '_' or '-'
	 */
	public static String group(String name) {
		if (name == null || !GROUP_NAME.matcher(name).matches()) {
			throw new IllegalArgumentException("Invalid partition group name '" + name + "': use 1 to "
					+ MAX_GROUP_NAME_LENGTH + " letters, digits, '.', '_' or '-'");
		}
		return name;
	}

	/**
	 * The row of a cluster lock in the lease table, or of a permit of one, as
	 * {@code ClusterLocks.findLocks} names it ({@link #permitKeys}).
	 * @param name the lock's name
	 * @return {@value #LOCK_NAME_PREFIX} followed by the name
	 * @throws IllegalArgumentException if the name is blank, longer than
	 * {@link #MAX_LOCK_NAME_LENGTH} characters, or ends with a space
	 */
	public static String lockKey(String name) {
		return LOCK_NAME_PREFIX + check("lock name", name, MAX_LOCK_NAME_LENGTH);
	}

	/**
	 * Check the name of a lock that is taken ({@code ClusterLocks.tryLock},
	 * {@code @ClusterLock}).
	 * @param name the lock's name
	 * @return the name
	 * @throws IllegalArgumentException if {@link #lockKey} refuses it, or it ends with
	 * {@value #PERMIT_SEPARATOR} and digits, which names a permit of another lock
	 */
	public static String lockName(String name) {
		lockKey(name);
		if (PERMIT_NAME.matcher(name).matches()) {
			throw new IllegalArgumentException("lock name '" + name + "' must not end with '" + PERMIT_SEPARATOR
					+ "' and a number, which names a permit of lock '"
					+ name.substring(0, name.lastIndexOf(PERMIT_SEPARATOR)) + "'");
		}
		return name;
	}

	/**
	 * The rows of the permits of a lock that up to {@code permits} holders may hold at
	 * once: the first is the lock's own row ({@link #lockKey}), so a lock is a lock of
	 * one permit, and permit {@code n > 1} is the lock row of
	 * {@code <name>}{@value #PERMIT_SEPARATOR}{@code <n>}.
	 * @param name the lock's name
	 * @param permits how many permits
	 * @return the rows, permit 1 first
	 * @throws IllegalArgumentException if {@link #lockName} refuses the name, if
	 * {@code permits} is not between 1 and {@value #MAX_PERMITS}, or if the name of the
	 * last permit is longer than {@link #MAX_LOCK_NAME_LENGTH} characters
	 */
	public static List<String> permitKeys(String name, int permits) {
		lockName(name);
		if (permits < 1 || permits > MAX_PERMITS) {
			throw new IllegalArgumentException(
					"permits of lock '" + name + "' (" + permits + ") must be between 1 and " + MAX_PERMITS);
		}
		List<String> keys = new ArrayList<>(permits);
		keys.add(lockKey(name));
		for (int permit = 2; permit <= permits; permit++) {
			String permitName = name + PERMIT_SEPARATOR + permit;
			if (permitName.length() > MAX_LOCK_NAME_LENGTH) {
				throw new IllegalArgumentException("lock name '" + name + "' is too long for " + permits
						+ " permits: the name of its last permit, '" + name + PERMIT_SEPARATOR + permits + "', is "
						+ (name.length() + PERMIT_SEPARATOR.length() + String.valueOf(permits).length())
						+ " characters long; at most " + MAX_LOCK_NAME_LENGTH + " are allowed");
			}
			keys.add(LOCK_NAME_PREFIX + permitName);
		}
		return keys;
	}

	private static String check(String what, String value, int maxLength) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException(what + " must not be blank");
		}
		if (value.length() > maxLength) {
			throw new IllegalArgumentException(what + " '" + value + "' is " + value.length()
					+ " characters long; at most " + maxLength + " are allowed");
		}
		if (value.endsWith(" ")) {
			// MySQL's and MariaDB's collations pad with spaces: 'a' and 'a ' would share
			// a
			// row.
			throw new IllegalArgumentException(what + " '" + value + "' must not end with a space, which MySQL and"
					+ " MariaDB ignore when they compare names");
		}
		return value;
	}

}
